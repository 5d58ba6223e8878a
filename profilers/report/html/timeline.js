  // graphprof HTML report (html/scripts.txt: how the files make one script), timeline.js: The timeline of runs and nodes (Timeline: canvas, pan and zoom) and its section.
  // A merged report's timeline has lanes (tl.lanes: each source's first timed run, e.g. one step of every rank): an
  // event's fifth value is its lane, and each lane takes (deepest depth + 1) rows; a lane's straggler nodes are outlined.
  class Timeline {
    constructor(tl, host) {
      const ev = asArray(tl.events).filter((e) => Array.isArray(e) && isNum(e[1]) && isNum(e[2]));
      const n = ev.length;
      this.n = n;
      this.ids = new Float64Array(n); this.st = new Float64Array(n); this.du = new Float64Array(n);
      this.dp = new Int32Array(n); this.ln = new Int32Array(n);
      this.lanes = asArray(tl.lanes).filter((l) => l && typeof l === 'object');
      const nLanes = Math.max(1, this.lanes.length);
      let maxEnd = 0; let maxDepth = 0;
      for (let i = 0; i < n; i++) {
        const e = ev[i];
        this.ids[i] = isNum(e[0]) ? e[0] : -1; this.st[i] = e[1]; this.du[i] = Math.max(0, e[2]);
        const d = isNum(e[3]) ? clamp(Math.floor(e[3]), 0, 63) : 0;
        this.dp[i] = d;
        this.ln[i] = isNum(e[4]) ? clamp(Math.floor(e[4]), 0, nLanes - 1) : 0;
        if (d > maxDepth) maxDepth = d;
        if (e[1] + e[2] > maxEnd) maxEnd = e[1] + e[2];
      }
      this.maxDepth = maxDepth;
      // per-row index lists sorted by start (row: lane * (maxDepth + 1) + depth)
      this.rows = nLanes * (maxDepth + 1);
      const byRow = Array.from({ length: this.rows }, () => []);
      for (let i = 0; i < n; i++) byRow[this.rowOf(i)].push(i);
      this.byRow = byRow.map((l) => Int32Array.from(sortIfUnsorted(l, (a, b) => this.st[a] - this.st[b])));
      // the straggler nodes of each lane
      this.stragglers = this.lanes.map((l) => new Set(asArray(l.stragglers).filter(isNum)));
      this.duration = isNum(tl.duration_ns) && tl.duration_ns > 0 ? Math.max(tl.duration_ns, maxEnd) : Math.max(maxEnd, 1);
      const mem = asArray(tl.memory).filter((p) => Array.isArray(p) && isNum(p[0]) && isNum(p[1])).sort((a, b) => a[0] - b[0]);
      this.memT = Float64Array.from(mem, (p) => p[0]);
      this.memB = Float64Array.from(mem, (p) => p[1]);
      this.peak = tl.peak && isNum(tl.peak.t_ns) ? tl.peak : null;
      const peakBytes = this.peak && isNum(this.peak.bytes) ? this.peak.bytes : 0;
      this.maxBytes = this.memB.reduce((m, b) => Math.max(m, b), Math.max(0, peakBytes));
      this.hasMem = this.memT.length > 0 || (this.peak && isNum(this.peak.bytes));
      this.t0 = 0; this.t1 = this.duration;
      this.rowH = 20; this.axisH = 22;
      this.charW = textWidth('abcdefghijklmnopqrstuvwxyz_./0123456789', `11px ${UI_FONT}`) / 39;
      this.selected = null;
      this.colorBy = 'kind';
      this.requestDraw = perFrame(() => this.draw());
      this.computeColors();
      this.build(host);
    }

    rowOf(i) { return this.ln[i] * (this.maxDepth + 1) + this.dp[i]; }
    laneLabel(lane) { const l = this.lanes[lane]; return l && typeof l.label === 'string' ? l.label : `lane ${lane}`; }

    hasNode(id) { if (!this.idSet) this.idSet = new Set(this.ids); return this.idSet.has(id); }

    computeColors() {
      const info = app.nodeIndex;
      const cat = (id) => {
        const x = info.get(id);
        if (!x) return '?';
        if (this.colorBy === 'kind') return x.kind || '?';
        return x.module ? x.module.split('.')[0] : '(top level)';
      };
      const cats = Array.from(this.ids, cat);
      const totals = new Map();
      cats.forEach((c, i) => totals.set(c, (totals.get(c) || 0) + this.du[i]));
      // By total time: the first categories get the palette's colours, the rest OTHER_COLOR.
      const ranked = [...totals.keys()].sort((a, b) => totals.get(b) - totals.get(a));
      const colorOf = new Map(ranked.map((c, i) => [c, PALETTE[i] || OTHER_COLOR]));
      this.legend = ranked.slice(0, PALETTE.length).map((c, i) => [c, PALETTE[i]]);
      this.legendOther = ranked.length > PALETTE.length;
      this.col = cats.map((c) => colorOf.get(c));
    }

    build(host) {
      this.evCanvas = h('canvas', { id: 'timeline-events', 'aria-label': 'timeline of node executions' });
      this.memCanvas = h('canvas', { id: 'timeline-memory', 'aria-label': 'live bytes over time' });
      this.range = h('span', { class: 'tl-range' });
      this.legendEl = h('div', { class: 'tl-legend' });
      host.appendChild(h('div', { class: 'tl-canvas-wrap' }, this.evCanvas));
      if (this.hasMem) {
        const label = h('div', { class: 'tl-mem-label' }, h('span', { text: 'live bytes' }));
        if (this.peak && isNum(this.peak.bytes)) {
          const info = isNum(this.peak.node) ? app.nodeIndex.get(this.peak.node) : null;
          label.appendChild(h('span', { style: 'color:#b91c1c', text: `\u25b2 peak ${fmtBytes(this.peak.bytes)} at ${fmtNs(this.peak.t_ns)}${isNum(this.peak.node) ? ` \u00b7 node #${this.peak.node}` : ''}${info ? ` ${info.name}` : ''}` }));
        }
        host.append(label, h('div', { class: 'tl-canvas-wrap' }, this.memCanvas));
      }
      host.appendChild(this.legendEl);
      this.renderLegend();
      this.attach();
    }

    renderLegend() {
      const item = (label, color, title) => h('span', { class: 'item', title }, h('span', { class: 'sw', style: `background:${color}` }), label);
      this.legendEl.replaceChildren(...this.legend.map(([c, color]) => item(c, color, c)), ...(this.legendOther ? [item('other', OTHER_COLOR)] : []));
    }

    setColorBy(v) { this.colorBy = v; this.computeColors(); this.renderLegend(); this.draw(); }

    xOf(t) { return (t - this.t0) * this.W / (this.t1 - this.t0); }
    tOf(x) { return this.t0 + x * (this.t1 - this.t0) / this.W; }

    // Sizes a canvas for a redraw and paints it white; returns [its context, set for axis text, its CSS width].
    setupCanvas(cv, cssH) {
      const dpr = window.devicePixelRatio || 1;
      const W = Math.max(200, cv.parentNode.clientWidth || 1000);
      cv.style.height = `${cssH}px`;
      if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(cssH * dpr)) {
        cv.width = Math.round(W * dpr); cv.height = Math.round(cssH * dpr);
      }
      const ctx = cv.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, W, cssH);
      ctx.font = `10.5px ${UI_FONT}`;
      ctx.textBaseline = 'middle';
      return [ctx, W];
    }

    niceStep(span, px) {
      const raw = span / Math.max(1, px / 110);
      const p = 10 ** Math.floor(Math.log10(raw));
      const m = raw / p;
      return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    }

    fmtTick(ns, step) {
      if (step >= 1e6) return `${(ns / 1e6).toFixed(step >= 1e7 ? 0 : 1)} ms`;
      if (step >= 1e3) return `${(ns / 1e3).toFixed(step >= 1e4 ? 0 : 1)} us`;
      return `${ns.toFixed(0)} ns`;
    }

    draw() {
      const evH = this.axisH + this.rows * this.rowH + 4;
      const [ctx, W] = this.setupCanvas(this.evCanvas, evH);
      this.W = W;
      const span = this.t1 - this.t0;
      const k = W / span;
      // axis + grid
      const step = this.niceStep(span, W);
      ctx.fillStyle = '#f8fafc';
      ctx.fillRect(0, 0, W, this.axisH);
      ctx.fillStyle = '#e2e8f0';
      ctx.fillRect(0, this.axisH - 1, W, 1);
      for (let t = Math.ceil(this.t0 / step) * step; t <= this.t1; t += step) {
        const x = Math.round((t - this.t0) * k) + 0.5;
        ctx.fillStyle = '#eef2f6';
        ctx.fillRect(x, this.axisH, 1, evH - this.axisH);
        ctx.fillStyle = '#cbd5e1';
        ctx.fillRect(x, this.axisH - 5, 1, 5);
        ctx.fillStyle = '#64748b';
        ctx.fillText(this.fmtTick(t, step), x + 3, this.axisH / 2);
      }
      // events
      const rowH = this.rowH;
      ctx.font = `11px ${UI_FONT}`;
      const selRects = []; const lagRects = [];
      for (let row = 0; row < this.rows; row++) {
        const list = this.byRow[row];
        const y = this.axisH + 2 + row * rowH;
        let lastPx = -1; let lastCol = null;
        // first event that may be visible: binary search by start, then step back over long events
        let lo = this.lowerBound(list, this.t0);
        while (lo > 0 && this.st[list[lo - 1]] + this.du[list[lo - 1]] > this.t0) { lo--; if (this.st[list[lo]] + this.du[list[lo]] < this.t0 - span) break; }
        for (let j = lo; j < list.length; j++) {
          const i = list[j];
          const s0 = this.st[i];
          if (s0 > this.t1) break;
          const e0 = s0 + this.du[i];
          if (e0 < this.t0) continue;
          const x0 = (s0 - this.t0) * k; const x1 = (e0 - this.t0) * k;
          const w = x1 - x0;
          const col = this.col[i];
          if (this.ids[i] === this.selected) selRects.push([x0, y, Math.max(w, 2)]);
          if (this.lanes.length && this.stragglers[this.ln[i]] && this.stragglers[this.ln[i]].has(this.ids[i])) lagRects.push([x0, y, Math.max(w, 2)]);
          if (w < 1) {
            const px = Math.floor(x0);
            if (px === lastPx && col === lastCol) continue;
            lastPx = px; lastCol = col;
            ctx.fillStyle = col;
            ctx.fillRect(px, y, 1, rowH - 2);
            continue;
          }
          lastPx = Math.floor(x1); lastCol = null;
          ctx.fillStyle = col;
          const cx0 = Math.max(x0, -2); const cx1 = Math.min(x1, W + 2);
          ctx.fillRect(cx0, y, Math.max(1, cx1 - cx0 - (w > 3 ? 1 : 0)), rowH - 2);
          if (cx1 - cx0 > 30) {
            const label = this.fitLabel(this.ids[i], Math.floor((cx1 - cx0 - 8) / this.charW));
            if (label) {
              ctx.fillStyle = '#0f172a';
              ctx.fillText(label, cx0 + 4, y + (rowH - 2) / 2 + 0.5);
            }
          }
        }
      }
      ctx.lineWidth = 2;
      ctx.strokeStyle = '#dc2626';
      for (const [x, y, w] of lagRects) ctx.strokeRect(x - 1, y - 1, w + 2, rowH);
      ctx.strokeStyle = '#f59e0b';
      for (const [x, y, w] of selRects) ctx.strokeRect(x - 1, y - 1, w + 2, rowH);
      this.drawLaneLabels(ctx, W);
      this.drawPeak(ctx, this.axisH, evH);
      this.range.textContent = this.t0 <= 0 && this.t1 >= this.duration ? `${this.lanes.length ? 'longest lane' : 'whole run'}: ${fmtNs(this.duration)}` : `${fmtNs(this.t0)} \u2013 ${fmtNs(this.t1)} (${fmtNs(span)} of ${fmtNs(this.duration)})`;
      if (this.hasMem) this.drawMemory();
    }

    // Lanes: a rule above each lane but the first, and its label at its left.
    drawLaneLabels(ctx, W) {
      if (!this.lanes.length) return;
      const laneH = (this.maxDepth + 1) * this.rowH;
      ctx.font = `bold 10.5px ${UI_FONT}`;
      for (let lane = 0; lane < this.lanes.length; lane++) {
        const y = this.axisH + 2 + lane * laneH;
        if (lane > 0) { ctx.fillStyle = '#94a3b8'; ctx.fillRect(0, y - 1, W, 1); }
        const label = this.laneLabel(lane);
        const tw = ctx.measureText(label).width;
        ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
        ctx.fillRect(0, y, tw + 8, this.rowH - 2);
        ctx.fillStyle = '#0f172a';
        ctx.fillText(label, 4, y + (this.rowH - 2) / 2 + 0.5);
      }
      ctx.font = `11px ${UI_FONT}`;
    }

    // "layer1.0.conv1/conv2d" -> "conv1/conv2d" -> "conv2d" -> "conv2\u2026", whichever fits.
    fitLabel(id, chars) {
      if (chars < 3) return '';
      const x = app.nodeIndex.get(id);
      const name = x ? x.name : `#${id}`;
      if (name.length <= chars) return name;
      const slash = name.lastIndexOf('/');
      const dot = name.lastIndexOf('.', slash >= 0 ? slash : name.length);
      const mid = dot >= 0 ? name.slice(dot + 1) : name;
      if (mid.length <= chars) return mid;
      const op = slash >= 0 ? name.slice(slash + 1) : mid;
      if (op.length <= chars) return op;
      return `${op.slice(0, chars - 1)}\u2026`;
    }

    // The peak's dashed line from y0 to y1, where it is in view; returns whether it is.
    drawPeak(ctx, y0, y1) {
      if (!this.peak) return false;
      const x = this.xOf(this.peak.t_ns);
      if (x < -1 || x > this.W + 1) return false;
      ctx.save();
      ctx.strokeStyle = 'rgba(220, 38, 38, 0.85)';
      ctx.setLineDash([4, 3]);
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(Math.round(x) + 0.5, y0); ctx.lineTo(Math.round(x) + 0.5, y1); ctx.stroke();
      ctx.restore();
      return true;
    }

    drawMemory() {
      const H = 90;
      const [ctx, W] = this.setupCanvas(this.memCanvas, H);
      const top = 12; const bottom = H - 16;
      ctx.fillStyle = '#e2e8f0'; ctx.fillRect(0, bottom, W, 1);
      const maxB = this.maxBytes > 0 ? this.maxBytes : 1;
      const yOf = (b) => bottom - (b / maxB) * (bottom - top);
      // grid lines at 50% / 100%
      ctx.fillStyle = '#f1f5f9';
      ctx.fillRect(0, Math.round(yOf(maxB)), W, 1);
      ctx.fillRect(0, Math.round(yOf(maxB / 2)), W, 1);
      const T = this.memT; const B = this.memB; const n = T.length;
      if (n) {
        // One pass over the pixel columns takes the step function's min and max over [t(px), t(px + 1))
        // and traces the area under the max, the max as a line (on whole pixels) and the min..max
        // band where the value moves within a pixel (drawn over the area, so after it).
        const k = W / (this.t1 - this.t0);
        let j = this.upperBoundT(this.t0) - 1;        // last point at or before t0
        let cur = j >= 0 ? B[j] : NaN;
        j++;
        const lastT = Math.min(this.t1, this.duration);
        const lastCol = Math.min(Math.ceil(W), Math.ceil((lastT - this.t0) * k));
        const area = new Path2D(); const line = new Path2D(); const bands = [];
        let open = false; let prevY = 0;
        for (let c = 0; c < lastCol; c++) {
          let lo = cur; let hi = cur;
          const tEnd = this.t0 + (c + 1) / k;
          while (j < n && T[j] < tEnd) {
            cur = B[j];
            if (!(lo <= cur)) lo = cur;
            if (!(hi >= cur)) hi = cur;
            j++;
          }
          if (hi !== hi) continue;   // NaN: before the first sample
          const y = yOf(hi); const ly = Math.round(y) + 0.5;
          if (!open) { area.moveTo(c, bottom); area.lineTo(c, y); line.moveTo(c, ly); open = true; }
          else if (ly !== prevY) line.lineTo(c, ly);
          area.lineTo(c, y); area.lineTo(c + 1, y);
          line.lineTo(c + 1, ly);
          prevY = ly;
          if (hi - lo > 0 && yOf(lo) - y >= 1) bands.push([c, y, yOf(lo) - y]);
        }
        if (open) { area.lineTo(lastCol, bottom); area.closePath(); ctx.fillStyle = 'rgba(37, 99, 235, 0.13)'; ctx.fill(area); }
        ctx.fillStyle = 'rgba(37, 99, 235, 0.28)';
        for (const [c, y, hb] of bands) ctx.fillRect(c, y, 1, hb);
        ctx.strokeStyle = '#2563eb';
        ctx.lineWidth = 1.25;
        ctx.stroke(line);
      }
      // y labels
      ctx.fillStyle = '#64748b';
      ctx.textAlign = 'right';
      ctx.fillText(fmtBytes(maxB), W - 4, yOf(maxB) - 0.5 > 8 ? yOf(maxB) - 1 : yOf(maxB) + 7);
      ctx.fillText('0', W - 4, bottom + 8);
      ctx.textAlign = 'left';
      // peak marker (the canvases are as wide as each other: drawPeak's view is this one's)
      if (this.peak && isNum(this.peak.bytes) && this.drawPeak(ctx, 0, bottom)) {
        const x = this.xOf(this.peak.t_ns);
        const y = yOf(this.peak.bytes);
        ctx.fillStyle = '#dc2626';
        ctx.beginPath(); ctx.arc(x, y, 3.5, 0, Math.PI * 2); ctx.fill();
        const label = `peak ${fmtBytes(this.peak.bytes)}`;
        const tw = ctx.measureText(label).width;
        const lx = x + 8 + tw > W ? x - 8 - tw : x + 8;
        const ly = Math.max(8, y + 1);
        ctx.fillStyle = 'rgba(255, 255, 255, 0.9)';
        ctx.fillRect(lx - 3, ly - 7, tw + 6, 14);
        ctx.fillStyle = '#b91c1c';
        ctx.fillText(label, lx, ly);
      }
    }

    lowerBound(list, t) { // first j with st[list[j]] >= t
      let lo = 0; let hi = list.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (this.st[list[m]] < t) lo = m + 1; else hi = m; }
      return lo;
    }
    upperBoundT(t) { let lo = 0; let hi = this.memT.length; while (lo < hi) { const m = (lo + hi) >> 1; if (this.memT[m] <= t) lo = m + 1; else hi = m; } return lo; }

    hit(e) { // the event under the mouse: its index, or -1
      const r = this.evCanvas.getBoundingClientRect();
      const row = Math.floor((e.clientY - r.top - this.axisH - 2) / this.rowH);
      if (row < 0 || row >= this.rows) return -1;
      const list = this.byRow[row];
      const t = this.tOf(e.clientX - r.left);
      const tol = 2 * (this.t1 - this.t0) / this.W;  // 2 px tolerance
      let j = this.lowerBound(list, t + tol) - 1;
      let best = -1;
      for (let steps = 0; j >= 0 && steps < 64; j--, steps++) {
        const i = list[j];
        if (this.st[i] + this.du[i] + tol >= t) { best = i; if (this.st[i] + this.du[i] >= t) break; }
        else if (best >= 0) break;
      }
      return best;
    }

    attach() {
      const cv = this.evCanvas;
      let drag = null;
      cv.addEventListener('mousedown', (e) => {
        if (e.button !== 0) return;
        drag = { x: e.clientX, t0: this.t0, t1: this.t1, moved: false };
        e.preventDefault();
      });
      window.addEventListener('mousemove', (e) => {
        if (!drag) return;
        const dx = e.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (!drag.moved) return;
        cv.classList.add('dragging');
        const span = drag.t1 - drag.t0;
        tooltip.hide();
        this.setView(drag.t0 - dx * span / this.W, span);
      });
      window.addEventListener('mouseup', (e) => {
        if (!drag) return;
        const wasDrag = drag.moved;
        drag = null;
        cv.classList.remove('dragging');
        if (!wasDrag && e.target === cv) {
          const i = this.hit(e);
          if (i >= 0 && this.ids[i] >= 0) selectNode(this.ids[i], 'timeline');
        }
      });
      cv.addEventListener('mousemove', (e) => {
        if (drag && drag.moved) return;
        const i = this.hit(e);
        if (i < 0) { tooltip.hide(); cv.style.cursor = ''; return; }
        cv.style.cursor = 'pointer';
        const x = app.nodeIndex.get(this.ids[i]);
        const rows = [['kind', x && x.kind], ['module', x && x.module]].filter(([, v]) => v);
        if (this.lanes.length) {
          rows.unshift(['lane', this.laneLabel(this.ln[i])]);
          if (this.stragglers[this.ln[i]].has(this.ids[i])) rows.push(['straggler', `${this.laneLabel(this.ln[i])} is called a straggler on this node`]);
        }
        rows.push(['start', fmtNs(this.st[i])], ['duration', `${fmtUs(this.du[i] / 1e3)} us`], ['depth', String(this.dp[i])]);
        tooltip.show(`#${this.ids[i]} ${x ? x.name : ''}`, rows, e.clientX, e.clientY);
      });
      cv.addEventListener('wheel', (e) => {
        if (!(e.ctrlKey || e.metaKey || e.altKey)) return;
        e.preventDefault();
        const r = cv.getBoundingClientRect();
        this.zoomAt(e.clientX - r.left, e.deltaY < 0 ? 0.8 : 1.25);
      }, { passive: false });
      cv.addEventListener('dblclick', () => this.reset());
      const mc = this.memCanvas;  // in the page only where there is memory data
      mc.addEventListener('mousemove', (e) => {
        const r = mc.getBoundingClientRect();
        const t = this.tOf(e.clientX - r.left);
        const j = this.upperBoundT(t) - 1;
        if (j < 0) { tooltip.hide(); return; }
        tooltip.show(`live ${fmtBytes(this.memB[j])}`, [['time', fmtNs(t)]], e.clientX, e.clientY);
      });
      for (const c of [cv, mc]) c.addEventListener('mouseleave', () => tooltip.hide());
    }

    zoomAt(x, f) {
      const span = this.t1 - this.t0;
      const minSpan = Math.min(this.duration, 1000);  // 1 us
      const ns = clamp(span * f, minSpan, this.duration);
      this.setView(this.tOf(x) - (x / this.W) * ns, ns);
    }
    reset() { this.setView(0, this.duration); }
    // Shows [t0, t0 + span] of the run, t0 moved into [0, duration - span].
    setView(t0, span) {
      this.t0 = clamp(t0, 0, Math.max(0, this.duration - span));
      this.t1 = this.t0 + span;
      this.requestDraw();
    }

    setSelected(id) { this.selected = id; this.requestDraw(); }

    focusNode(id) {
      let best = -1;
      for (let i = 0; i < this.n; i++) if (this.ids[i] === id && (best < 0 || this.du[i] > this.du[best])) best = i;
      if (best < 0) return;
      const span = Math.min(this.duration, Math.max(this.du[best] * 8, 2000));
      const c = this.st[best] + this.du[best] / 2;
      this.selected = id;
      this.setView(c - span / 2, span);
    }
  }

  function renderTimeline(main, d) {
    const tl = d.timeline;
    const lanes = tl && typeof tl === 'object' ? asArray(tl.lanes) : [];
    const sub = lanes.length ? `the first timed run of each of ${lanes.length} ${lanes.every((l) => l && /^rank \d+$/.test(l.label)) ? 'ranks (one step)' : 'merged reports'}, one lane each`
      : tl && isNum(tl.run) ? `run ${tl.run}` : null;
    section(main, 'timeline-section', 'Timeline', sub, 'timeline', (el, head) => {
      if (!tl || typeof tl !== 'object' || (!asArray(tl.events).length && !asArray(tl.memory).length)) return 'No timeline recorded for this report.';
      const host = el.appendChild(h('div', { class: 'tl-wrap' }));
      const t = new Timeline(tl, host);
      app.timeline = t;
      const sel = h('select', { class: 'gp-select', id: 'timeline-color', 'aria-label': 'colour events by', onchange: () => t.setColorBy(sel.value) },
        h('option', { value: 'kind', text: 'kind' }), h('option', { value: 'module', text: 'top-level module' }));
      const btn = (text, title, fn, id) => h('button', { class: 'gp-btn', type: 'button', text, title, onclick: fn, id });
      head.append(h('span', { class: 'gp-spacer' }), t.range,
        h('span', { class: 'gp-label', text: 'colour by' }), sel,
        h('span', { class: 'gp-btn-group' },
          btn('+', 'zoom in', () => t.zoomAt(t.W / 2, 0.5), 'timeline-zoom-in'),
          btn('\u2212', 'zoom out', () => t.zoomAt(t.W / 2, 2), 'timeline-zoom-out'),
          btn('Reset', 'show the whole run', () => t.reset(), 'timeline-reset')),
        h('span', { class: 'gp-hint', text: `drag to pan \u00b7 Ctrl+wheel to zoom${lanes.length ? ' \u00b7 red outline: straggler' : ''}` }));
      t.draw();
    });
  }

