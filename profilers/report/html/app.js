  // graphprof HTML report (html/scripts.txt: how the files make one script), app.js: The shared state (app), selecting a node everywhere, the page's sections: summary, diff, roofline.
  const app = {
    nodeIndex: new Map(), nodeTable: null, tables: null, ir: null, timeline: null, icicle: null,
    selectedNode: null, selbar: null,
  };

  function selectNode(id, from) {
    if (!isNum(id)) return;
    app.selectedNode = id;
    const nt = app.nodeTable;
    if (nt) {
      if (from !== 'table') {
        if (app.tables.active !== 'node') app.tables.select('node');
        nt.revealId(id);
        const r = nt.scroll.getBoundingClientRect();
        if (from !== 'ir-hot' && (r.top < 50 || r.bottom > window.innerHeight)) scrollToSection('tables-section');
      }
      // After the reveal's renders (which mark the previous selection's rows): just the first row with this id.
      nt.setSelected(id);
    }
    if (app.ir) app.ir.highlight(id, from !== 'ir');
    if (app.timeline) app.timeline.setSelected(id);
    updateSelbar();
  }

  function updateSelbar() {
    const bar = app.selbar;
    if (!bar) return;
    const id = app.selectedNode;
    const info = id == null ? null : app.nodeIndex.get(id);
    if (!info) {
      bar.replaceChildren(h('span', { class: 'gp-muted', text: app.nodeIndex.size ? 'Click a node row to highlight it in the IR and the timeline; click an IR line or a timeline event to find its row.' : 'No nodes.' }));
      return;
    }
    // What the node lacks (a kind, a module, a time) is left out: replaceChildren would print a null as "null".
    bar.replaceChildren(...[
      h('span', { class: 'gp-kv' }, 'node ', h('b', { class: 'gp-mono', text: `#${id}` })),
      h('span', { class: 'gp-mono', text: info.name }),
      info.kind ? h('span', { class: 'gp-kv' }, 'kind ', h('b', { text: info.kind })) : null,
      info.module ? h('span', { class: 'gp-kv' }, 'module ', h('b', { class: 'gp-mono', text: info.module })) : null,
      isNum(info.mean_us) ? h('span', { class: 'gp-kv' }, 'time ', h('b', { text: `${fmtUs(info.mean_us)} us` }), isNum(info.percent) ? ` (${info.percent.toFixed(2)}%)` : '') : null,
      h('span', { style: 'flex:1 1 auto' }),
    ].filter((child) => child != null));
    // A button that shows the node in another section and scrolls to it.
    const showIn = (text, sectionId, show) => h('button', { class: 'gp-btn', type: 'button', text, onclick: () => { show(); scrollToSection(sectionId); } });
    if (app.ir && app.ir.lineOf(id) >= 0) bar.appendChild(showIn('Show in IR \u2193', 'ir-section', () => app.ir.highlight(id, true)));
    if (app.timeline && app.timeline.hasNode(id)) bar.appendChild(showIn('Show in timeline \u2191', 'timeline-section', () => app.timeline.focusNode(id)));
  }

  // ================================================================ sections
  // Appends a section with a heading (and a subtitle) to main and calls fill(el, head) (the section, its
  // head row) to fill it; fill may return a message to show instead of content it has no data for.
  // Errors show in the section as those of `name` (see guarded).
  function section(main, id, title, sub, name, fill) {
    const head = h('div', { class: 'gp-section-head' }, h('h2', { text: title }), sub ? h('span', { class: 'gp-sub', text: sub }) : null);
    const el = main.appendChild(h('section', { class: 'gp-section', id }, head));
    guarded(name, el, () => {
      const empty = fill(el, head);
      if (empty) el.appendChild(h('div', { class: 'gp-empty', text: empty }));
    });
  }

  function guarded(name, container, fn) {
    try {
      fn();
    } catch (e) {
      console.error(`graphprof: failed to render ${name}:`, e);
      container.appendChild(h('div', { class: 'gp-error', text: `Could not render ${name}: ${e && e.message ? e.message : e}` }));
    }
  }

  // ---------------------------------------------------------------- summary
  function card(label, value, unit, sub) {
    return h('div', { class: 'gp-card' }, h('div', { class: 'gp-card-label', text: label }),
      h('div', { class: 'gp-card-value' }, value, unit ? h('span', { class: 'gp-unit', text: unit }) : null),
      sub ? h('div', { class: 'gp-card-sub' }, sub) : null);
  }
  function fmtRange(a, b) { // "36.93 - 40.35 ms" when both ends share a unit
    const [x, ux] = splitTime(a); const [y, uy] = splitTime(b);
    return ux === uy && isNum(a) && isNum(b) ? `${x} \u2013 ${y} ${uy}` : `${fmtTime(a)} \u2013 ${fmtTime(b)}`;
  }
  function splitTime(us) { // "43.84 ms" -> ["43.84", "ms"]
    const s = fmtTime(us);
    const i = s.lastIndexOf(' ');
    return i > 0 ? [s.slice(0, i), s.slice(i + 1)] : [s, ''];
  }

  function renderSummary(main, d) {
    const s = d.summary && typeof d.summary === 'object' ? d.summary : {};
    const sec = main.appendChild(h('section', { class: 'gp-section', id: 'summary' }));
    guarded('summary', sec, () => {
      const hero = h('div', { class: 'gp-hero' },
        h('div', { class: 'gp-kicker', text: 'graphprof report' }),
        h('div', { class: 'gp-hero-title' }, h('h1', { id: 'model-name', text: asStr(s.model) || '(unnamed model)' })));
      const ru = s.run_us && typeof s.run_us === 'object' ? s.run_us : {};
      const ver = s.verified === true ? h('span', { class: 'gp-badge good', text: '\u2713 verified' })
        : s.verified === false ? h('span', { class: 'gp-badge bad', text: '\u2717 mismatch' })
          : h('span', { class: 'gp-badge neutral', text: 'not checked' });
      // The peak's node: a button that selects it where the node table has it.
      const peakNode = isNum(s.peak_node) ? `#${s.peak_node}${s.peak_node_name ? ` ${asStr(s.peak_node_name)}` : ''}` : null;
      const peakSub = peakNode && app.nodeIndex.has(s.peak_node)
        ? h('button', { class: 'gp-link', type: 'button', id: 'peak-node-link', title: 'show this node', text: peakNode, onclick: () => selectNode(s.peak_node, 'summary') })
        : peakNode;
      const cards = h('div', { class: 'gp-cards' },
        card('Mean run time', ...splitTime(ru.mean),
          isNum(ru.mean) ? `${fmtUs(ru.mean)} us` + (isNum(ru.std) ? ` \u00b1 ${fmtUs(ru.std)} us` : '') : null),
        card('Median run time', ...splitTime(ru.median),
          isNum(ru.min) || isNum(ru.max) ? `range ${fmtRange(ru.min, ru.max)}` : null),
        card('Runs', isNum(s.runs) ? String(s.runs) : '-', null,
          `${isNum(s.warmup) ? `${s.warmup} warm-up` : 'warm-up n/a'}${s.clock ? ` \u00b7 ${asStr(s.clock)}` : ''}`),
        card('Output check', ver, null, s.verify_detail ? asStr(s.verify_detail) : null),
        card('Coverage', isNum(s.coverage) ? (100 * s.coverage).toFixed(2) : '-', isNum(s.coverage) ? '%' : null,
          isNum(s.timer_ns) ? `timer ${s.timer_ns.toFixed(1)} ns per node${s.compensated ? ', compensated' : ''}` : 'timer cost n/a'),
        card('Nodes', isNum(s.nodes) ? s.nodes.toLocaleString('en-US') : '-', null,
          isNum(s.executions) ? `${s.executions.toLocaleString('en-US')} executions per run` : null),
        isNum(s.peak_bytes) ? card('Peak memory', ...fmtBytes(s.peak_bytes).split(' '), peakSub) : card('Peak memory', '-', null, 'not measured'));
      sec.append(hero, cards);
      const lines = asArray(s.lines).filter(Array.isArray);
      if (lines.length) sec.appendChild(h('dl', { class: 'gp-lines' }, lines.map((l) => [h('dt', { text: asStr(l[0]) }), h('dd', { text: asStr(l[1]) })])));
    });
  }

  // ---------------------------------------------------------------- diff
  function renderDiff(main, d) {
    const df = d.diff;
    if (!df || typeof df !== 'object') return;
    section(main, 'diff', 'Comparison', 'base \u2192 current', 'diff', (el) => {
      const box = (label, ...rows) => h('div', { class: 'gp-diff-model' }, h('div', { class: 'gp-card-label', text: label }), ...rows);
      const model = (label, name, total) => box(label,
        h('div', { class: 'gp-mono', text: asStr(name) || '-' }),
        h('div', { class: 'gp-big', text: isNum(total) ? fmtTime(total) : '-' }),
        isNum(total) ? h('div', { class: 'gp-card-sub', text: `${fmtUs(total)} us per run` }) : null);
      const sp = df.speedup;
      const [spText, spCls] = isNum(sp) && sp > 0 ? formatCell('speedup', sp) : ['-', ''];
      const spWord = isNum(sp) && sp > 0 ? (sp > 1 ? 'faster' : sp < 1 ? 'slower' : 'same speed') : '';
      const spEl = box('Speedup',
        h('div', { class: `gp-speedup-big ${spCls}`, id: 'diff-speedup', text: spText }),
        h('div', { class: 'gp-card-sub' }, spWord,
          isNum(df.matched_time_fraction) ? ` \u00b7 ${(100 * df.matched_time_fraction).toFixed(1)}% of time matched` : ''),
        df.total ? h('div', { class: 'gp-card-sub', id: 'diff-verdict' },
          `median ${fmtChange(df.total.change)} `,
          h('span', { class: formatCell('verdict', df.total.verdict)[1], text: asStr(df.total.verdict) })) : null,
        df.speed ? h('div', { class: 'gp-card-sub', id: 'diff-speed' },
          `machine speed ${fmtChange(df.speed.change)} `,
          h('span', { class: formatCell('verdict', df.speed.verdict)[1], text: asStr(df.speed.verdict) })) : null,
        df.noise_note ? h('div', { class: 'gp-card-sub dim', text: df.noise_note }) : null);
      el.appendChild(h('div', { class: 'gp-diff-models', style: 'grid-template-columns: 1fr auto 1fr 220px' },
        model('Base', df.base_model, df.base_total_us), h('div', { class: 'gp-diff-arrow', text: '\u2192' }),
        model('Current', df.current_model, df.current_total_us), spEl));
      const g = tableGroup('diff', df.tables || {}, ['module', 'kind', 'node'], { module: 'Modules', kind: 'Kinds', node: 'Nodes' });
      if (!g.views.size) return 'No comparison tables.';
      el.appendChild(h('div', { class: 'gp-section-head', style: 'border-bottom:0;padding-bottom:0' }, g.tabs,
        h('span', { class: 'gp-hint', text: 'speedup = base / current; change: median with its 95% interval (whisker: -50%..+50%); green is faster, red is slower, only where significant' })));
      el.appendChild(g.body);
      app.diffTables = g;  // start() shows its first view once the page is built
    });
  }

  // ---------------------------------------------------------------- roofline
  // Log-log: arithmetic intensity (FLOP/B) against achieved GFLOP/s, the
  // memory roof (peak_gbps x intensity), the caches' roofs (dashed: the
  // bandwidth at smaller working sets) and the compute roof (peak_gflops);
  // one point per executed counted node, its area by self time; hover names
  // it, a click selects its row.
  function renderRoofline(main, d) {
    const rf = d.roofline;
    if (!rf || !Array.isArray(rf.points) || !isNum(rf.peak_gflops) || !isNum(rf.peak_gbps)) return;
    section(main, 'roofline-section', 'Roofline', `peak ${rf.peak_gflops.toFixed(1)} GFLOP/s, ${rf.peak_gbps.toFixed(1)} GB/s (${asStr(rf.source)})`, 'roofline', (el) => {
      const pts = rf.points.filter((p) => Array.isArray(p) && isNum(p[1]) && isNum(p[2]) && p[1] > 0 && p[2] > 0);
      const W = 720, H = 360, L = 56, B = 36, R = 12, T = 12;
      const ridge = rf.peak_gflops / rf.peak_gbps;
      const caches = (Array.isArray(rf.bandwidth) ? rf.bandwidth : [])
        .filter((b) => Array.isArray(b) && isNum(b[0]) && isNum(b[1]) && b[1] > rf.peak_gbps * 1.05);
      const xs = pts.map((p) => p[1]).concat([ridge], caches.map((b) => rf.peak_gflops / b[1]));
      const ys = pts.map((p) => p[2]).concat([rf.peak_gflops]);
      const lx0 = Math.floor(Math.log10(Math.min(...xs)) - 0.5), lx1 = Math.ceil(Math.log10(Math.max(...xs)) + 0.5);
      const ly0 = Math.floor(Math.log10(Math.min(...ys)) - 0.5), ly1 = Math.ceil(Math.log10(Math.max(rf.peak_gflops * 2, ...ys)));
      const X = (v) => L + (W - L - R) * (Math.log10(v) - lx0) / Math.max(1e-9, lx1 - lx0);
      const Y = (v) => H - B - (H - B - T) * (Math.log10(v) - ly0) / Math.max(1e-9, ly1 - ly0);
      const chart = svg('svg', { id: 'roofline-chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H });
      const add = (...args) => chart.appendChild(svg(...args));
      for (let k = lx0; k <= lx1; k++) {
        add('line', { x1: X(10 ** k), x2: X(10 ** k), y1: T, y2: H - B, class: 'gp-roof-grid' });
        add('text', { x: X(10 ** k), y: H - B + 14, 'text-anchor': 'middle', class: 'gp-roof-tick' }, `1e${k}`);
      }
      for (let k = ly0; k <= ly1; k++) {
        add('line', { x1: L, x2: W - R, y1: Y(10 ** k), y2: Y(10 ** k), class: 'gp-roof-grid' });
        add('text', { x: L - 4, y: Y(10 ** k) + 4, 'text-anchor': 'end', class: 'gp-roof-tick' }, `1e${k}`);
      }
      const xmin = 10 ** lx0, xmax = 10 ** lx1;
      // A bandwidth's roof, from where it enters the chart (at the bottom or the left edge) up to the compute roof.
      const from = (gbps) => Math.max(xmin, 10 ** ly0 / gbps);
      const roof = (gbps, cls, ...title) => add('line', { x1: X(from(gbps)), y1: Y(from(gbps) * gbps), x2: X(rf.peak_gflops / gbps), y2: Y(rf.peak_gflops), class: cls }, ...title);
      for (const b of caches) roof(b[1], 'gp-roof-cache', svg('title', { text: `${b[1].toFixed(1)} GB/s with a working set of ${fmtBytes(b[0])}` }));
      roof(rf.peak_gbps, 'gp-roof-memory');
      add('line', { x1: X(ridge), y1: Y(rf.peak_gflops), x2: X(xmax), y2: Y(rf.peak_gflops), class: 'gp-roof-compute' });
      add('text', { x: X(xmax) - 4, y: Y(rf.peak_gflops) - 4, 'text-anchor': 'end', class: 'gp-roof-label' }, `${rf.peak_gflops.toFixed(1)} GFLOP/s`);
      add('text', { x: X(from(rf.peak_gbps)) + 4, y: Y(from(rf.peak_gbps) * rf.peak_gbps) - 6, class: 'gp-roof-label' }, `${rf.peak_gbps.toFixed(1)} GB/s`);
      add('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', class: 'gp-roof-axis' }, 'arithmetic intensity (FLOP/byte)');
      add('text', { x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, 'text-anchor': 'middle', class: 'gp-roof-axis' }, 'achieved GFLOP/s');
      const maxUs = Math.max(1e-9, ...pts.map((p) => (isNum(p[3]) ? p[3] : 0)));
      for (const p of pts) {
        const r = 2 + 10 * Math.sqrt(Math.max(0, isNum(p[3]) ? p[3] : 0) / maxUs);
        add('circle', { cx: X(p[1]), cy: Y(p[2]), r: r.toFixed(2), class: 'gp-roof-point', 'data-id': p[0], onclick: () => selectNode(p[0], 'roofline') },
          svg('title', { text: `${asStr(p[5])}: ${p[2].toPrecision(3)} GFLOP/s at ${p[1].toPrecision(3)} FLOP/B` +
          (isNum(p[4]) ? `, ${(100 * p[4]).toFixed(1)}% of attainable` : '') + (isNum(p[3]) ? `, ${fmtUs(p[3])} us` : '') }));
      }
      el.appendChild(h('div', { class: 'gp-roofline' }, chart));
      el.appendChild(h('div', { class: 'gp-hint', text: `${pts.length} nodes; area: self time; the lines: what this machine can do at each intensity` +
        (caches.length ? `; dashed: the same with smaller working sets (in the caches; hover for the size)` : '') }));
    });
  }

