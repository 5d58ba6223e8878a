  // graphprof HTML report (html/scripts.txt: how the files make one script), icicle.js: The module icicle (Icicle) and its section.
  class Icicle {
    constructor(tree, container, crumbs, resetBtn) {
      this.container = container;
      this.crumbs = crumbs;
      this.resetBtn = resetBtn;
      this.rowH = 22;
      this.root = this.normalize(tree, null, 0);
      this.byPath = new Map();
      this.walk(this.root, (n) => { if (!this.byPath.has(n.path)) this.byPath.set(n.path, n); });
      // colour: by top-level module (child of the root), lighter with each level below it
      this.root.children.forEach((c, i) => this.walk(c, (x) => { x.color = mix(PALETTE[i % PALETTE.length], Math.min(0.62, (x.depth - c.depth) * 0.16)); }));
      this.root.color = '#94a3b8';
      this.zoomNode = this.root;
      this.charW = textWidth('abcdefghijklmnopqrstuvwxyz0123456789._', `11px ${UI_FONT}`) / 38;
      container.addEventListener('mousemove', (e) => this.onHover(e));
      container.addEventListener('mouseleave', () => tooltip.hide());
      container.addEventListener('click', (e) => {
        const node = this.nodeAt(e);
        if (node) this.zoom(node === this.zoomNode && node.parent ? node.parent : node);
      });
      resetBtn.addEventListener('click', () => this.zoom(this.root));
    }

    normalize(t, parent, depth) {
      const n = {
        name: asStr(t && t.name), path: asStr(t && t.path), time: isNum(t && t.time_ns) ? Math.max(0, t.time_ns) : 0,
        self: isNum(t && t.self_ns) ? t.self_ns : null, nodes: isNum(t && t.nodes) ? t.nodes : null,
        parent, depth, children: [], color: null,
      };
      if (!n.name) n.name = parent ? n.path.split('.').pop() : '(root)';
      if (depth < 200) for (const c of asArray(t && t.children)) if (c && typeof c === 'object') n.children.push(this.normalize(c, n, depth + 1));
      return n;
    }

    // Calls fn on n and every node below it (depth first, the last child first; no recursion).
    walk(n, fn) {
      const stack = [n];
      while (stack.length) {
        const x = stack.pop();
        fn(x);
        for (const c of x.children) stack.push(c);
      }
    }

    // The tree node of the box under the mouse event e, if any.
    nodeAt(e) {
      const r = e.target.closest && e.target.closest('rect[data-path]');
      return r ? this.byPath.get(r.getAttribute('data-path')) : undefined;
    }

    shortName(n) {
      return /^\d+$/.test(n.name) && n.parent && n.parent.parent ? `${n.parent.name}.${n.name}` : n.name;
    }

    zoom(node) {
      this.zoomNode = node;
      tooltip.hide();
      this.render();
    }

    render() {
      const c = this.container;
      const width = Math.max(200, c.clientWidth || 1000);
      this.width = width;
      const root = this.zoomNode;
      const rowH = this.rowH;
      const scale = root.time > 0 ? width / root.time : 0;
      const g = svg('g');
      let maxDepth = 0;
      const rootDepth = root.depth;
      const charW = this.charW;
      // iterative DFS; children are packed from the left in execution order
      const stack = [[root, 0]];
      while (stack.length) {
        const [n, x] = stack.pop();
        const w = n.time * scale;
        if (w < 1 && n !== root) continue;
        const d = n.depth - rootDepth;
        if (d > maxDepth) maxDepth = d;
        const y = d * rowH;
        const rw = Math.max(1, n === root ? width : w);
        g.appendChild(svg('rect', {
          x: x.toFixed(2), y, width: Math.max(0.5, rw - 0.5).toFixed(2), height: rowH - 1,
          fill: n.color || '#94a3b8', 'data-path': n.path, class: n === root && n.parent ? 'ic-root' : null,
        }));
        const maxChars = Math.floor((rw - 8) / charW);
        if (maxChars >= 3) {
          let label = n === this.root ? '(root)' : (n === root ? n.path : this.shortName(n));
          const t = `${label}  ${fmtNs(n.time)}`;
          if (t.length <= maxChars) label = t;
          else if (label.length > maxChars) label = `${label.slice(0, maxChars - 1)}\u2026`;
          g.appendChild(svg('text', { x: (x + 4).toFixed(2), y: y + (rowH - 1) / 2, text: label }));
        }
        let cx = x;
        const kids = n.children.map((ch) => { const at = cx; cx += ch.time * scale; return [ch, at]; });
        for (const k of kids.reverse()) stack.push(k);  // the first child comes off the stack first
      }
      const height = (maxDepth + 1) * rowH;
      c.replaceChildren(svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'module time icicle chart' }, g));
      this.renderCrumbs();
    }

    renderCrumbs() {
      const chain = [];
      for (let n = this.zoomNode; n; n = n.parent) chain.unshift(n);
      // root › ... › the zoomed node: buttons that zoom out to each, the zoomed one as text.
      this.crumbs.replaceChildren(...chain.flatMap((n, i) => {
        const label = n.parent ? n.name : '(root)';
        const el = n === this.zoomNode ? h('span', { class: 'cur', text: label }) : h('button', { type: 'button', text: label, onclick: () => this.zoom(n) });
        return i ? [h('span', { class: 'sep', text: '\u203a' }), el] : [el];
      }));
      this.resetBtn.disabled = this.zoomNode === this.root;
    }

    onHover(e) {
      const n = this.nodeAt(e);
      if (!n) { tooltip.hide(); return; }
      const total = this.root.time;
      const rows = [
        ['time', `${fmtUs(n.time / 1e3)} us (${fmtNs(n.time)})`],
        ['of run', total > 0 ? fmtPct(100 * n.time / total) : '-'],
      ];
      if (n.parent && n.parent.time > 0) rows.push(['of parent', fmtPct(100 * n.time / n.parent.time)]);
      if (n.self != null) rows.push(['self', `${fmtUs(n.self / 1e3)} us`]);
      if (n.nodes != null) rows.push(['nodes', n.nodes.toLocaleString('en-US')]);
      rows.push(['', n === this.zoomNode ? (n.parent ? 'click to zoom out' : '') : 'click to zoom in']);
      tooltip.show(n.path || '(root)', rows, e.clientX, e.clientY);
    }
  }

  function renderIcicle(main, d) {
    section(main, 'icicle-section', 'Module time', 'icicle chart: width = time, rows = module depth', 'icicle', (el, head) => {
      const t = d.tree;
      if (!t || typeof t !== 'object') return 'No module tree in this report.';
      const crumbs = h('nav', { class: 'ic-crumbs', id: 'icicle-crumbs', 'aria-label': 'icicle zoom path' });
      const reset = h('button', { class: 'gp-btn', type: 'button', id: 'icicle-reset', text: 'Reset zoom' });
      head.append(h('span', { class: 'gp-spacer' }), h('span', { class: 'gp-hint', text: 'click a box to zoom \u00b7 click the top box to zoom out' }), reset);
      const box = h('div', { id: 'icicle' });
      el.appendChild(h('div', { class: 'ic-wrap' }, h('div', { style: 'margin-bottom:8px' }, crumbs), box));
      app.icicle = new Icicle(t, box, crumbs, reset);
      app.icicle.render();
    });
  }

