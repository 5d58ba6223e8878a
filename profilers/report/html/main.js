  // graphprof HTML report (html/scripts.txt: how the files make one script), main.js: The tables section, the top bar, and start(): builds the page once the document is read.
  function renderTables(main, d) {
    section(main, 'tables-section', 'Tables', null, 'tables', (el, head) => {
      app.selbar = h('div', { class: 'gp-selbar', id: 'selection-bar' });
      const g = tableGroup('', d.tables || {}, ['node', 'kind', 'module', 'shape'],
        { node: 'Nodes', kind: 'Kinds', module: 'Modules', shape: 'Shapes' },
        { node: { onRowClick: (r, id) => selectNode(id, 'table') } });
      app.tables = g;
      app.nodeTable = g.views.get('node') || null;
      if (!g.views.size) return 'No tables in this report.';
      head.appendChild(g.tabs);
      el.appendChild(g.body);
      if (app.nodeTable) el.appendChild(app.selbar);
      g.select();
    });
  }

  // ================================================================ main
  function topbar(d) {
    const s = d.summary || {};
    // The comparison and the roofline only where the report has them.
    const links = [['summary', 'Summary'], d.diff && ['diff', 'Comparison'], ['icicle-section', 'Modules'], ['timeline-section', 'Timeline'], ['tables-section', 'Tables'], d.roofline && ['roofline-section', 'Roofline'], ['ir-section', 'IR']].filter(Boolean);
    const nav = h('nav', { class: 'gp-nav' }, links.map(([id, label]) =>
      h('a', { href: `#${id}`, text: label, onclick: (e) => { if (scrollToSection(id)) e.preventDefault(); } })));
    return h('header', { class: 'gp-topbar' }, h('span', { class: 'gp-brand' }, h('span', { class: 'gp-logo' }), 'graphprof'),
      h('span', { class: 'gp-topbar-model', text: asStr(s.model) }), nav);
  }

  function start() {
    const t0 = performance.now();
    const app0 = document.getElementById('app') || document.body.appendChild(h('div', { id: 'app' }));
    app0.replaceChildren();
    let d;
    try {
      d = readData();
    } catch (e) {
      console.error('graphprof: cannot read report data:', e);
      app0.appendChild(h('div', { class: 'gp-error', text: `Cannot read the report data: ${e && e.message ? e.message : e}` }));
      window.__graphprofReady = true;
      return;
    }
    app.nodeIndex = buildNodeIndex(normTable(d.tables && d.tables.node));
    app0.appendChild(topbar(d));
    const main = app0.appendChild(h('main'));
    // The sections, in page order.
    for (const render of [renderSummary, renderDiff, renderRoofline, renderIcicle, renderTimeline, renderTables, renderIr]) render(main, d);
    if (app.diffTables) guarded('diff tables', main, () => app.diffTables.select());
    updateSelbar();  // now that the sections it links to are there

    let resizeTimer = 0;
    let lastW = window.innerWidth;
    window.addEventListener('resize', () => {
      if (window.innerWidth === lastW) return;
      lastW = window.innerWidth;
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        if (app.icicle && app.icicle.container.clientWidth !== app.icicle.width) app.icicle.render();
        if (app.timeline && app.timeline.evCanvas.parentNode.clientWidth !== app.timeline.W) app.timeline.draw();
        const views = [app.tables, app.diffTables].filter(Boolean).flatMap((g) => [...g.views.values()]);
        for (const v of views) if (v.built) v.applyWidths();
      }, 120);
    });
    window.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && app.icicle && app.icicle.zoomNode.parent && !(e.target && e.target.tagName === 'INPUT')) app.icicle.zoom(app.icicle.zoomNode.parent);
    });
    window.__graphprofRenderMs = performance.now() - t0;
    const done = () => {
      if (window.__graphprofReady) return;
      window.__graphprofReadyMs = performance.now();
      window.__graphprofReady = true;
    };
    requestAnimationFrame(() => setTimeout(done, 0));
    setTimeout(done, 1000);  // in case animation frames are throttled (background tab)
  }

  window.graphprofReport = { app, selectNode };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
