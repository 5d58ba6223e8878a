  // graphprof HTML report (html/scripts.txt: how the files make one script), ir_view.js: The annotated IR (IrView) and its section.
  class IrView {
    constructor(lines, host) {
      this.lines = lines;
      this.lineH = 18;
      this.hl = null;
      this.lineByNode = new Map();
      let maxShare = 0; let maxLen = 0;
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i];
        if (isNum(l[1]) && l[1] >= 0 && !this.lineByNode.has(l[1])) this.lineByNode.set(l[1], i);
        if (isNum(l[2]) && l[2] > maxShare) maxShare = l[2];
        if (l[0].length > maxLen) maxLen = l[0].length;
      }
      this.maxShare = maxShare;
      this.inner = h('div', { class: 'ir-inner', style: `height:${lines.length * this.lineH}px;min-width:calc(${Math.min(maxLen, 2000) + 2}ch + 140px)` });
      this.scroll = host.appendChild(h('div', { class: 'ir-scroll', id: 'ir', style: `height:${Math.min(560, lines.length * this.lineH + 18)}px` }, this.inner));
      this.rendered = [-1, -1];
      this.scroll.addEventListener('scroll', perFrame(() => this.render()), { passive: true });
      this.inner.addEventListener('click', (e) => {
        const el = e.target.closest('.ir-line[data-line-node]');
        if (el) selectNode(Number(el.getAttribute('data-line-node')), 'ir');  // which highlights the line
      });
      this.inner.addEventListener('mousemove', (e) => {
        const el = e.target.closest('.ir-line[data-line-node]');
        if (!el) { tooltip.hide(); return; }
        const id = Number(el.getAttribute('data-line-node'));
        const x = app.nodeIndex.get(id);
        const l = this.lines[Number(el.getAttribute('data-line'))];
        const rows = [x && isNum(x.mean_us) && ['time', `${fmtUs(x.mean_us)} us`], ['share', isNum(l[2]) ? fmtPct(100 * l[2]) : '-'],
          x && x.module && ['module', x.module], ['', 'click to find the node row']];
        tooltip.show(`#${id} ${x ? x.name : ''}`, rows.filter(Boolean), e.clientX, e.clientY);
      });
      this.inner.addEventListener('mouseleave', () => tooltip.hide());
    }

    // Annotation for node lines that come without one ("  # 12.3 us 0.45% (x8) | module"), built
    // from the node table, so the data may carry bare IR lines to save space.
    annotation(id) {
      const x = app.nodeIndex.get(id);
      if (!x || !isNum(x.mean_us)) return '';
      let a = `  # ${fmtUs(x.mean_us)} us`;
      if (isNum(x.percent)) a += ` ${x.percent.toFixed(2)}%`;
      if (isNum(x.calls) && x.calls !== 1) a += ` (x${x.calls})`;
      if (x.module) a += ` | ${x.module}`;
      return a;
    }

    lineOf(id) { return this.lineByNode.get(id) ?? -1; }

    render(force) {
      const n = this.lines.length;
      const [start, end] = visibleRows(this.scroll, n, this.lineH, 20);
      if (!force && start === this.rendered[0] && end === this.rendered[1]) return;
      this.rendered = [start, end];
      const frag = document.createDocumentFragment();
      const digits = String(n).length;
      for (let i = start; i < end; i++) {
        const [text, node, share] = this.lines[i];
        const hasNode = isNum(node) && node >= 0;
        const heat = isNum(share) && share > 0 && this.maxShare > 0 ? Math.sqrt(Math.min(1, share / this.maxShare)) : 0;
        const hb = h('span', { class: hasNode ? 'hb' : 'hb none' });
        if (hasNode && heat > 0) hb.appendChild(h('i')).style.width = `${Math.max(1, Math.round(40 * share / this.maxShare))}px`;
        // The annotation: the line's own ("  # ..."), else one made from the node table.
        const cut = hasNode ? text.lastIndexOf('  # ') : -1;
        const ann = cut > 0 ? text.slice(cut + 2) : hasNode ? this.annotation(node) : '';
        const el = frag.appendChild(h('div', { class: `ir-line${hasNode ? ' has-node' : ''}${hasNode && node === this.hl ? ' hl' : ''}`,
          style: `top:${i * this.lineH}px`, 'data-line': i, 'data-line-node': hasNode ? node : null },
          h('span', { class: 'ln', text: String(i + 1).padStart(digits, ' ') }), hb,
          cut > 0 ? text.slice(0, cut + 2) : text, ann ? h('span', { class: 'ann', text: ann }) : null));
        if (heat > 0.03) el.style.backgroundColor = `rgba(239, 68, 68, ${(0.55 * heat).toFixed(3)})`;
      }
      this.inner.replaceChildren(frag);
    }

    highlight(id, scroll) {
      this.hl = id;
      const i = this.lineOf(id);
      if (scroll && i >= 0) {
        revealRow(this.scroll, i * this.lineH, this.lineH);
        this.render(true);
      }
      markOnly(this.inner, '.ir-line', 'hl', i >= 0 ? `.ir-line[data-line="${i}"]` : null);
    }
  }

  function renderIr(main, d) {
    section(main, 'ir-section', 'Annotated IR', 'background = share of run time', 'IR', (el, head) => {
      const lines = asArray(d.ir).filter(Array.isArray).map((l) => [asStr(l[0]), isNum(l[1]) ? l[1] : -1, isNum(l[2]) ? l[2] : 0]);
      if (!lines.length) return 'No IR in this report.';
      head.append(h('span', { class: 'gp-spacer' }), h('span', { class: 'gp-sub', text: `${lines.length.toLocaleString('en-US')} lines` }),
        h('span', { class: 'ir-legend' }, 'cold', h('span', { class: 'ramp' }), 'hot'),
        h('span', { class: 'gp-hint', text: 'click a node line to find its table row' }));
      app.ir = new IrView(lines, el);
      app.ir.render(true);
      let hot = -1;
      for (let i = 0; i < lines.length; i++) if (lines[i][1] >= 0 && (hot < 0 || lines[i][2] > lines[hot][2])) hot = i;
      if (hot >= 0 && lines[hot][2] > 0) {
        head.appendChild(h('button', { class: 'gp-btn', type: 'button', id: 'ir-hottest', text: 'Hottest line', title: 'select the node with the largest share of run time',
          onclick: () => selectNode(lines[hot][1], 'ir-hot') }));
      }
    });
  }
