// graphprof HTML report - renders the JSON embedded in <script id="graphprof-data">.
// Vanilla ES2020, no dependencies, no network. All data strings go through textContent /
// setAttribute (never innerHTML), so model names may contain any characters.
(function () {
  'use strict';

  // ================================================================ utilities
  const SVGNS = 'http://www.w3.org/2000/svg';
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const clamp = (v, lo, hi) => (v < lo ? lo : v > hi ? hi : v);
  const asArray = (v) => (Array.isArray(v) ? v : []);
  const asStr = (v) => (v == null ? '' : String(v));

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    if (attrs) setAttrs(el, attrs);
    for (const c of children) add(el, c);
    return el;
  }
  function svg(tag, attrs) {
    const el = document.createElementNS(SVGNS, tag);
    if (attrs) setAttrs(el, attrs);
    return el;
  }
  function setAttrs(el, attrs) {
    for (const k of Object.keys(attrs)) {
      const v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'class') el.setAttribute('class', v);
      else if (k === 'text') el.textContent = String(v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  function add(el, c) {
    if (c == null || c === false) return;
    if (Array.isArray(c)) { for (const x of c) add(el, x); return; }
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

  // Number formats (match the C++ text report).
  function fmtUs(us) {
    if (!isNum(us)) return '';
    const a = Math.abs(us);
    return a >= 1000 ? us.toFixed(0) : a >= 100 ? us.toFixed(1) : a >= 10 ? us.toFixed(2) : us.toFixed(3);
  }
  function fmtBytes(b) {
    if (!isNum(b)) return '';
    const a = Math.abs(b);
    if (a < 1024) return `${Math.round(b)} B`;
    if (a < 1024 * 1024) return `${(b / 1024).toFixed(2)} KiB`;
    if (a < 1024 * 1024 * 1024) return `${(b / (1024 * 1024)).toFixed(2)} MiB`;
    return `${(b / (1024 * 1024 * 1024)).toFixed(2)} GiB`;
  }
  // Human time from microseconds: "812.3 us", "43.84 ms", "1.234 s".
  function fmtTime(us) {
    if (!isNum(us)) return '-';
    const a = Math.abs(us);
    if (a < 1000) return `${fmtUs(us)} us`;
    if (a < 1e6) return `${(us / 1e3).toFixed(a < 1e4 ? 3 : 2)} ms`;
    return `${(us / 1e6).toFixed(3)} s`;
  }
  const fmtNs = (ns) => fmtTime(isNum(ns) ? ns / 1e3 : null);
  function fmtNum(v) {
    if (!isNum(v)) return '';
    if (Number.isInteger(v)) return String(v);
    return String(Number(v.toPrecision(6)));
  }
  function fmtPct(p) { return isNum(p) ? `${p.toFixed(2)}%` : '-'; }

  // Cell formatting by column type: returns [text, extra class].
  function formatCell(type, v) {
    if (v == null || (typeof v === 'number' && !Number.isFinite(v))) {
      return type === 'speedup' ? ['-', 'dim'] : ['', ''];
    }
    switch (type) {
      case 'int': return [typeof v === 'number' ? String(Math.round(v)) : asStr(v), ''];
      case 'num': return [typeof v === 'number' ? fmtNum(v) : asStr(v), ''];
      case 'us': return [typeof v === 'number' ? fmtUs(v) : asStr(v), ''];
      case 'pct': return [typeof v === 'number' ? v.toFixed(2) : asStr(v), ''];
      case 'bytes': return [typeof v === 'number' ? fmtBytes(v) : asStr(v), ''];
      case 'delta_us':
        if (typeof v !== 'number') return [asStr(v), ''];
        return [(v > 0 ? '+' : '') + fmtUs(v), v < 0 ? 'better' : v > 0 ? 'worse' : ''];
      case 'speedup':
        if (typeof v !== 'number') return [asStr(v), ''];
        if (v === 0) return ['-', 'dim'];
        return [`${v.toFixed(2)}\u00d7`, v > 1 ? 'better' : v < 1 ? 'worse' : ''];
      case 'change': return [fmtChange(v), ''];
      case 'verdict':
        return [asStr(v), v === 'faster' ? 'better' : v === 'slower' ? 'worse' : v === 'same' ? 'dim' : 'inconclusive'];
      default: return [asStr(v), ''];
    }
  }
  // A diff row's change with its 95% interval: [change, low, high] as fractions.
  function fmtChange(v) {
    if (!Array.isArray(v) || !isNum(v[0])) return Array.isArray(v) && v[0] === null ? 'new' : '';
    const pct = (x) => (isNum(x) ? (100 * x).toFixed(1) : '\u221e');
    return `${v[0] > 0 ? '+' : ''}${pct(v[0])}% [${pct(v[1])}, ${pct(v[2])}]`;
  }
  // The interval as a whisker on a scale of -50%..+50% (clamped), 0 marked.
  function whisker(v, verdict) {
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', `gp-whisker ${verdict || ''}`);
    svg.setAttribute('width', '64');
    svg.setAttribute('height', '10');
    const x = (f) => 32 + 30 * clamp(isNum(f) ? f / 0.5 : (f === null ? 1 : 0), -1, 1);
    const line = (x1, x2, y1, y2, cls) => {
      const l = document.createElementNS(ns, 'line');
      l.setAttribute('x1', x1); l.setAttribute('x2', x2); l.setAttribute('y1', y1); l.setAttribute('y2', y2);
      l.setAttribute('class', cls);
      svg.appendChild(l);
    };
    line(32, 32, 0, 10, 'gp-whisker-zero');
    const lo = isNum(v[1]) ? v[1] : -1; const hi = isNum(v[2]) ? v[2] : 1;
    line(x(lo), x(hi), 5, 5, 'gp-whisker-range');
    const dot = document.createElementNS(ns, 'circle');
    dot.setAttribute('cx', x(v[0])); dot.setAttribute('cy', 5); dot.setAttribute('r', 2.5);
    dot.setAttribute('class', 'gp-whisker-dot');
    svg.appendChild(dot);
    return svg;
  }
  const NUMERIC_TYPES = new Set(['int', 'num', 'us', 'pct', 'bytes', 'delta_us', 'speedup', 'change']);

  // Categorical palette (colour-blind friendly-ish, readable with dark text).
  const PALETTE = ['#6d9eeb', '#f6b26b', '#93c47d', '#e06666', '#b4a7d6', '#76a5af', '#ffd966',
    '#c27ba0', '#a2c4c9', '#d5a6bd', '#b6d7a8', '#f9cb9c'];
  const OTHER_COLOR = '#cbd5e1';

  function hexToRgb(hex) {
    const n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }
  function mix(hex, t) { // t>0 mixes towards white
    const [r, g, b] = hexToRgb(hex);
    const f = (c) => Math.round(c + (255 - c) * t);
    return `rgb(${f(r)},${f(g)},${f(b)})`;
  }

  // Shared canvas for text measurement.
  const measureCtx = document.createElement('canvas').getContext('2d');
  function textWidth(text, font) {
    measureCtx.font = font;
    return measureCtx.measureText(text).width;
  }

  // ================================================================ tooltip
  const tooltip = {
    el: null,
    show(title, rows, x, y) {
      if (!this.el) { this.el = h('div', { class: 'gp-tooltip', role: 'tooltip' }); document.body.appendChild(this.el); }
      const el = this.el;
      clear(el);
      el.appendChild(h('div', { class: 'tt-title', text: title }));
      for (const [k, v] of rows) el.appendChild(h('div', { class: 'tt-row' }, h('span', { text: k }), h('span', { text: v })));
      el.style.display = 'block';
      this.move(x, y);
    },
    move(x, y) {
      const el = this.el;
      if (!el || el.style.display === 'none') return;
      const w = el.offsetWidth; const hh = el.offsetHeight;
      let left = x + 14; let top = y + 16;
      if (left + w > window.innerWidth - 8) left = Math.max(8, x - w - 14);
      if (top + hh > window.innerHeight - 8) top = Math.max(8, y - hh - 12);
      el.style.left = `${left}px`; el.style.top = `${top}px`;
    },
    hide() { if (this.el) this.el.style.display = 'none'; },
  };

  // ================================================================ data
  function readData() {
    const el = document.getElementById('graphprof-data');
    if (!el) throw new Error('graphprof: no <script id="graphprof-data"> element');
    const text = el.textContent;
    let d;
    try {
      d = JSON.parse(text);
    } catch (e) {
      // An HTML comment opener followed by a script start tag inside the JSON (possible when only
      // the end-tag sequence was escaped) makes the HTML parser run the data element on to the end
      // of the document; the JSON itself is intact, so cut that tail off.
      const end = text.lastIndexOf('}');
      try { d = JSON.parse(text.slice(0, end + 1)); } catch (e2) { throw e; }
      console.warn('graphprof: the data element was not terminated where expected; escape every "<" in the JSON as \\u003c');
    }
    if (!d || typeof d !== 'object') throw new Error('graphprof: data is not an object');
    if (d.format !== 'graphprof-html') console.warn('graphprof: unexpected data format', d.format);
    if (d.version !== 1) console.warn('graphprof: data version', d.version, 'is newer than this page (1)');
    return d;
  }

  function normTable(t) {
    if (!t || typeof t !== 'object') return null;
    const columns = asArray(t.columns).filter((c) => c && typeof c.key === 'string')
      .map((c) => ({ key: c.key, label: c.label == null ? c.key : String(c.label), type: c.type || 'text' }));
    const rows = asArray(t.rows).filter(Array.isArray);
    const sums = Array.isArray(t.sums) ? t.sums : null;
    const ds = t.default_sort && typeof t.default_sort.key === 'string' ? t.default_sort : null;
    return { columns, rows, sums, default_sort: ds, indent_key: typeof t.indent_key === 'string' ? t.indent_key : null };
  }

  // Node info (id -> row fields) from the node table.
  function buildNodeIndex(t) {
    const idx = new Map();
    if (!t) return idx;
    const col = (k) => t.columns.findIndex((c) => c.key === k);
    const ci = col('id'); const cn = col('name'); const ck = col('kind'); const cm = col('module');
    const cmean = col('mean_us'); const cp = col('percent'); const cc = col('calls');
    if (ci < 0) return idx;
    for (let r = 0; r < t.rows.length; r++) {
      const row = t.rows[r];
      const id = row[ci];
      if (!isNum(id) || idx.has(id)) continue;
      idx.set(id, {
        row: r, id, name: cn >= 0 ? asStr(row[cn]) : '', kind: ck >= 0 ? asStr(row[ck]) : '',
        module: cm >= 0 ? asStr(row[cm]) : '', mean_us: cmean >= 0 ? row[cmean] : null,
        percent: cp >= 0 ? row[cp] : null, calls: cc >= 0 ? row[cc] : null,
      });
    }
    return idx;
  }

  // ================================================================ virtual table
  const NAME_KEYS = ['name', 'module', 'kind', 'shape', 'path'];
  const SEARCH_KEYS = ['name', 'kind', 'module', 'shape'];
  const TABLE_FONT = `12.5px ${getComputedStyleFont()}`;
  function getComputedStyleFont() {
    return 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "Liberation Sans", "DejaVu Sans", Arial, sans-serif';
  }

  class TableView {
    // id: "node" -> <table id="table-node">, <input id="search-node">.
    constructor(id, table, opts) {
      this.id = id;
      this.t = table;
      this.opts = opts || {};
      const cols = table.columns;
      this.keyIdx = new Map(cols.map((c, i) => [c.key, i]));
      const ik = table.indent_key != null ? this.keyIdx.get(table.indent_key) : undefined;
      this.indentIdx = ik === undefined ? -1 : ik;
      this.vis = cols.map((c, i) => i).filter((i) => i !== this.indentIdx);
      let nameIdx = -1;
      for (const k of NAME_KEYS) {
        const i = this.keyIdx.get(k);
        if (i !== undefined && cols[i].type === 'text') { nameIdx = i; break; }
      }
      if (nameIdx < 0) nameIdx = this.vis.find((i) => cols[i].type === 'text') ?? -1;
      this.nameIdx = nameIdx;
      const idI = this.keyIdx.get('id');
      this.idIdx = idI === undefined ? -1 : idI;
      let search = SEARCH_KEYS.map((k) => this.keyIdx.get(k)).filter((i) => i !== undefined && cols[i].type === 'text');
      if (!search.length) search = cols.map((c, i) => i).filter((i) => cols[i].type === 'text');
      this.searchIdx = search;
      const ds = table.default_sort;
      this.defaultSort = ds && this.keyIdx.has(ds.key) ? { key: ds.key, desc: !!ds.desc } : null;
      this.sortKey = this.defaultSort ? this.defaultSort.key : null;
      this.sortDesc = this.defaultSort ? this.defaultSort.desc : false;
      this.query = '';
      this.order = null;          // row indices after sort + filter
      this.sortCache = new Map();
      this.hay = null;            // lowercase search strings, built lazily
      this.selectedId = null;
      this.rowH = 24;
      this.built = false;
      this.rendered = [-1, -1];
      this.root = h('div', { class: 'tv', id: `view-${id}` });
    }

    ensureBuilt() {
      if (this.built) return;
      this.built = true;
      const t = this.t;
      const cols = t.columns;
      this.search = h('input', {
        class: 'tv-search', id: `search-${this.id}`, type: 'search', spellcheck: 'false', autocomplete: 'off',
        placeholder: this.searchPlaceholder(), 'aria-label': `Filter ${this.id} table`,
      });
      this.count = h('span', { class: 'tv-count' });
      this.resetBtn = h('button', { class: 'gp-btn', type: 'button', id: `sort-reset-${this.id}`, text: this.defaultSort ? 'Default sort' : 'Original order', title: 'Restore the initial row order' });
      this.resetBtn.addEventListener('click', () => this.setSort(this.defaultSort ? this.defaultSort.key : null, this.defaultSort ? this.defaultSort.desc : false));
      const toolbar = h('div', { class: 'tv-toolbar' }, h('span', { class: 'tv-search-wrap' }, this.search), this.count,
        h('span', { class: 'gp-spacer', style: 'flex:1 1 auto' }), this.resetBtn);
      this.table = h('table', { class: 'grid', id: `table-${this.id}` });
      this.colgroup = h('colgroup');
      const tr = h('tr');
      this.ths = new Map();
      for (const i of this.vis) {
        const c = cols[i];
        const num = NUMERIC_TYPES.has(c.type);
        const th = h('th', { 'data-key': c.key, class: num ? 'num' : null, title: `${c.label} - click to sort`, scope: 'col' });
        const arrow = h('span', { class: 'arrow' });
        if (num) add(th, [arrow, h('span', { text: c.label })]); else add(th, [h('span', { text: c.label }), arrow]);
        this.ths.set(c.key, th);
        tr.appendChild(th);
        this.colgroup.appendChild(h('col'));
      }
      this.thead = h('thead', null, tr);
      this.tbody = h('tbody');
      this.table.append(this.colgroup, this.thead, this.tbody);
      if (t.sums) {
        const ftr = h('tr', { class: 'sums' });
        for (const i of this.vis) {
          const c = cols[i];
          const [text, cls] = formatCell(c.type, t.sums[i]);
          ftr.appendChild(h('td', { class: `${NUMERIC_TYPES.has(c.type) ? 'num' : ''} ${cls}`.trim() || null, text }));
        }
        this.tfoot = h('tfoot', null, ftr);
        this.table.appendChild(this.tfoot);
      }
      this.scroll = h('div', { class: 'tv-scroll' }, this.table);
      this.root.append(toolbar, this.scroll);
      if (this.opts.footer) this.root.appendChild(this.opts.footer);

      this.thead.addEventListener('click', (e) => {
        const th = e.target.closest('th');
        if (!th) return;
        const key = th.getAttribute('data-key');
        const c = cols[this.keyIdx.get(key)];
        if (this.sortKey === key) this.setSort(key, !this.sortDesc);
        else this.setSort(key, NUMERIC_TYPES.has(c.type));
      });
      this.tbody.addEventListener('click', (e) => {
        const tr2 = e.target.closest('tr.row');
        if (!tr2 || !this.opts.onRowClick) return;
        const r = Number(tr2.getAttribute('data-row'));
        const id = this.idIdx >= 0 ? this.t.rows[r][this.idIdx] : null;
        this.opts.onRowClick(r, id);
      });
      let timer = 0;
      this.search.addEventListener('input', () => {
        clearTimeout(timer);
        const delay = this.t.rows.length > 20000 ? 180 : 60;
        timer = setTimeout(() => this.setQuery(this.search.value), delay);
      });
      this.search.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') { clearTimeout(timer); this.setQuery(this.search.value); }
        if (e.key === 'Escape') { this.search.value = ''; clearTimeout(timer); this.setQuery(''); }
      });
      let raf = 0;
      this.scroll.addEventListener('scroll', () => {
        if (raf) return;
        raf = requestAnimationFrame(() => { raf = 0; this.renderRows(); });
      }, { passive: true });
      if (this.opts.onRowClick && this.idIdx >= 0) {
        // keyboard: up/down move the selection through the (sorted, filtered) rows
        this.scroll.tabIndex = 0;
        this.scroll.addEventListener('keydown', (e) => {
          if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
          const n = this.order.length;
          if (!n) return;
          const pos = this.selectedId == null ? -1 : this.positionOf(this.selectedId);
          const next = pos < 0 ? 0 : clamp(pos + (e.key === 'ArrowDown' ? 1 : -1), 0, n - 1);
          const r = this.order[next];
          const id = this.t.rows[r][this.idIdx];
          if (id == null) return;
          e.preventDefault();
          this.opts.onRowClick(r, id);
          this.revealId(id);
        });
      }

      this.computeWidths();
      this.recompute();
      this.updateHeader();
      this.layout();
      this.renderRows(true);
    }

    searchPlaceholder() {
      const keys = this.searchIdx.map((i) => this.t.columns[i].key);
      return keys.length ? `Filter by ${keys.join(', ')}\u2026` : 'Filter\u2026';
    }

    computeWidths() {
      const cols = this.t.columns;
      const rows = this.t.rows;
      const order = this.sortedIndices();
      const sample = [];
      const n = Math.min(order.length, 400);
      for (let k = 0; k < n; k++) sample.push(order[k]);
      // also sample evenly across the table
      const step = Math.max(1, Math.floor(rows.length / 200));
      for (let r = 0; r < rows.length && sample.length < 700; r += step) sample.push(r);
      let maxIndent = 0;
      if (this.indentIdx >= 0) for (const r of sample) { const d = rows[r][this.indentIdx]; if (isNum(d)) maxIndent = Math.max(maxIndent, d); }
      const widths = [];
      let total = 0;
      for (const i of this.vis) {
        const c = cols[i];
        const num = NUMERIC_TYPES.has(c.type);
        const font = c.key === 'source' || c.key === 'shapes' ? `11.5px ${getComputedStyleFont()}` : TABLE_FONT;
        let w = textWidth(c.label, `600 ${TABLE_FONT}`) + 36; // padding + sort arrow
        let longest = '';
        for (const r of sample) {
          const [text] = formatCell(c.type, rows[r][i]);
          if (text.length > longest.length) longest = text;
        }
        if (this.t.sums) { const [text] = formatCell(c.type, this.t.sums[i]); if (text.length > longest.length) longest = text; }
        w = Math.max(w, textWidth(longest, font) + 20);
        if (i === this.nameIdx) w += maxIndent * 14;
        const max = num ? 150 : i === this.nameIdx ? 460 : c.key === 'source' ? 300 : c.key === 'shapes' ? 280 : 260;
        w = Math.ceil(clamp(w, num ? 56 : 64, max));
        widths.push(w);
        total += w;
      }
      this.widths = widths;
      this.totalWidth = total;
      this.applyWidths();
    }

    // The name column takes the free width of the panel, up to 420 px; any rest stays empty.
    applyWidths() {
      const colsEls = this.colgroup.children;
      const avail = (this.scroll && this.scroll.clientWidth) || this.root.clientWidth || 1200;
      const slack = Math.max(0, avail - this.totalWidth);
      let total = 0;
      this.vis.forEach((i, k) => {
        let w = this.widths[k];
        if (i === this.nameIdx) w = Math.min(Math.max(w, 420), w + slack);
        colsEls[k].style.width = `${w}px`;
        total += w;
      });
      this.table.style.width = `${total}px`;
    }

    layout() {
      const n = this.order.length;
      const headH = this.thead.offsetHeight || 30;
      const footH = this.tfoot ? this.tfoot.offsetHeight || 26 : 0;
      const body = n === 0 ? 41 : n * this.rowH;
      const want = headH + body + footH + 16; // room for a horizontal scrollbar
      const max = Math.max(260, Math.min(560, Math.round(window.innerHeight * 0.62)));
      this.scroll.style.height = `${Math.min(want, max)}px`;
    }

    sortedIndices() {
      const key = this.sortKey;
      const cacheKey = `${key}|${this.sortDesc}`;
      const cached = this.sortCache.get(cacheKey);
      if (cached) return cached;
      const rows = this.t.rows;
      const n = rows.length;
      const idx = new Array(n);
      for (let i = 0; i < n; i++) idx[i] = i;
      if (key != null) {
        const ci = this.keyIdx.get(key);
        const type = this.t.columns[ci].type;
        const desc = this.sortDesc;
        if (NUMERIC_TYPES.has(type)) {
          const vals = new Float64Array(n);
          for (let i = 0; i < n; i++) {
            const v = rows[i][ci];
            vals[i] = isNum(v) ? v : Array.isArray(v) && isNum(v[0]) ? v[0] : NaN;
          }
          const cmp = (a, b) => {
            const x = vals[a]; const y = vals[b];
            const xn = x !== x; const yn = y !== y;           // NaN: null/missing -> always last
            if (xn || yn) return xn && yn ? a - b : xn ? 1 : -1;
            return (desc ? y - x : x - y) || a - b;
          };
          let sorted = true;                                  // rows often come pre-sorted
          for (let i = 1; i < n; i++) if (cmp(i - 1, i) > 0) { sorted = false; break; }
          if (!sorted) idx.sort(cmp);
        } else {
          const vals = new Array(n);
          for (let i = 0; i < n; i++) { const v = rows[i][ci]; vals[i] = v == null ? null : String(v).toLowerCase(); }
          idx.sort((a, b) => {
            const x = vals[a]; const y = vals[b];
            if (x === null || y === null) return x === null && y === null ? a - b : x === null ? 1 : -1;
            const c = x < y ? -1 : x > y ? 1 : 0;
            return (desc ? -c : c) || a - b;
          });
        }
      }
      if (this.sortCache.size > 6) this.sortCache.clear();
      this.sortCache.set(cacheKey, idx);
      return idx;
    }

    buildHay() {
      if (this.hay) return;
      const rows = this.t.rows;
      const hay = new Array(rows.length);
      const si = this.searchIdx;
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r];
        let s = '';
        for (let k = 0; k < si.length; k++) { const v = row[si[k]]; if (v != null) s += `${String(v).toLowerCase()}\u0001`; }
        hay[r] = s;
      }
      this.hay = hay;
    }

    recompute() {
      const base = this.sortedIndices();
      const q = this.query.trim().toLowerCase();
      if (!q) this.order = base;
      else {
        this.buildHay();
        const hay = this.hay;
        this.order = base.filter((r) => hay[r].includes(q));
      }
      const n = this.order.length; const total = this.t.rows.length;
      this.count.textContent = q ? `${n.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows` : `${total.toLocaleString('en-US')} rows`;
      this.table.setAttribute('data-filter', this.query.trim());
      this.table.setAttribute('data-rows', String(n));
      const isDefault = this.defaultSort ? this.sortKey === this.defaultSort.key && this.sortDesc === this.defaultSort.desc : this.sortKey == null;
      this.resetBtn.disabled = isDefault;
      this.posById = null;
    }

    updateHeader() {
      for (const [key, th] of this.ths) {
        const on = key === this.sortKey;
        th.setAttribute('aria-sort', on ? (this.sortDesc ? 'descending' : 'ascending') : 'none');
        th.querySelector('.arrow').textContent = on ? (this.sortDesc ? '\u25bc' : '\u25b2') : '';
      }
      this.table.setAttribute('data-sort', this.sortKey ? `${this.sortKey}:${this.sortDesc ? 'desc' : 'asc'}` : '');
    }

    setSort(key, desc) {
      this.sortKey = key; this.sortDesc = !!desc;
      this.recompute();
      this.updateHeader();
      this.scroll.scrollTop = 0;
      this.renderRows(true);
    }

    setQuery(q) {
      if (q === this.query) return;
      this.query = q;
      this.recompute();
      this.layout();
      this.scroll.scrollTop = 0;
      this.renderRows(true);
    }

    indentActive() { return this.indentIdx >= 0 && this.sortKey == null; }

    renderRows(force) {
      if (!this.built) return;
      const order = this.order;
      const n = order.length;
      const rowH = this.rowH;
      const st = this.scroll.scrollTop;
      const vh = this.scroll.clientHeight || 500;
      const over = 10;
      const start = Math.max(0, Math.floor(st / rowH) - over);
      const end = Math.min(n, Math.ceil((st + vh) / rowH) + over);
      if (!force && start === this.rendered[0] && end === this.rendered[1]) return;
      this.rendered = [start, end];
      const cols = this.t.columns;
      const rows = this.t.rows;
      const frag = document.createDocumentFragment();
      const nvis = this.vis.length;
      const spacer = (px) => {
        const tr = h('tr', { class: 'spacer', 'aria-hidden': 'true' });
        const td = h('td', { colspan: nvis });
        td.style.height = `${px}px`;
        tr.appendChild(td);
        return tr;
      };
      if (n === 0) {
        const tr = h('tr', { class: 'empty' }, h('td', { colspan: nvis, text: this.query ? `No rows match \u201c${this.query}\u201d` : 'No rows' }));
        frag.appendChild(tr);
      } else {
        frag.appendChild(spacer(start * rowH));
        const indent = this.indentActive();
        const clickable = !!this.opts.onRowClick;
        for (let k = start; k < end; k++) {
          const r = order[k];
          const row = rows[r];
          const tr = document.createElement('tr');
          tr.className = clickable ? 'row clickable' : 'row';
          tr.setAttribute('data-row', String(r));
          if (this.idIdx >= 0 && row[this.idIdx] != null) {
            tr.setAttribute('data-id', String(row[this.idIdx]));
            if (row[this.idIdx] === this.selectedId) tr.className += ' selected';
          }
          for (let j = 0; j < nvis; j++) {
            const i = this.vis[j];
            const c = cols[i];
            const v = row[i];
            const [text, cls] = formatCell(c.type, v);
            const td = document.createElement('td');
            let cn = NUMERIC_TYPES.has(c.type) ? 'num' : 't-text';
            if (c.key === 'source' || c.key === 'shapes') cn = 't-mono';
            else if (c.key === 'kind') cn = 't-kind';
            if (c.type === 'pct') {
              cn += ' t-pct';
              if (isNum(v)) td.style.setProperty('--p', `${clamp(v, 0, 100).toFixed(2)}%`);
            }
            if (cls) cn += ` ${cls}`;
            td.className = cn;
            td.textContent = text;
            if (c.type === 'change' && Array.isArray(v)) {
              const vi = this.keyIdx.get('verdict');
              td.appendChild(whisker(v, vi !== undefined ? row[vi] : ''));
            }
            if (i === this.nameIdx) {
              if (indent) { const d = row[this.indentIdx]; if (isNum(d) && d > 0) td.style.paddingLeft = `${8 + 14 * Math.min(d, 40)}px`; }
              td.title = text;
            } else if (c.type === 'text' && text.length > 24) td.title = text;
            tr.appendChild(td);
          }
          frag.appendChild(tr);
        }
        frag.appendChild(spacer((n - end) * rowH));
      }
      clear(this.tbody);
      this.tbody.appendChild(frag);
      if (!this.measured && n > 0) {
        this.measured = true;
        const first = this.tbody.querySelector('tr.row');
        const real = first ? first.getBoundingClientRect().height : 0;
        if (real > 4 && Math.abs(real - rowH) > 0.5) { this.rowH = real; this.layout(); this.renderRows(true); }
      }
    }

    setSelected(id) {
      this.selectedId = id;
      if (!this.built) return;
      for (const tr of this.tbody.querySelectorAll('tr.row.selected')) tr.classList.remove('selected');
      if (id == null) return;
      const tr = this.tbody.querySelector(`tr.row[data-id="${CSS.escape(String(id))}"]`);
      if (tr) tr.classList.add('selected');
    }

    // Scrolls so that the row with this id is visible (clearing the filter if it hides it).
    revealId(id) {
      this.ensureBuilt();
      if (this.idIdx < 0) return false;
      let pos = this.positionOf(id);
      if (pos < 0 && this.query) {
        this.search.value = '';
        this.setQuery('');
        pos = this.positionOf(id);
      }
      if (pos < 0) return false;
      const vh = this.scroll.clientHeight || 400;
      const top = pos * this.rowH;
      const st = this.scroll.scrollTop;
      const headH = this.thead.offsetHeight || 30;
      const footH = this.tfoot ? this.tfoot.offsetHeight : 0;
      if (top < st || top + this.rowH > st + vh - headH - footH) {
        this.scroll.scrollTop = Math.max(0, top - (vh - headH) / 2);
      }
      this.renderRows(true);
      return true;
    }

    positionOf(id) {
      if (!this.posById) {
        const m = new Map();
        const order = this.order; const rows = this.t.rows; const ci = this.idIdx;
        for (let k = 0; k < order.length; k++) { const v = rows[order[k]][ci]; if (v != null && !m.has(v)) m.set(v, k); }
        this.posById = m;
      }
      const p = this.posById.get(id);
      return p === undefined ? -1 : p;
    }

    onShow() { this.ensureBuilt(); this.applyWidths(); this.layout(); this.renderRows(true); }
  }

  // Tabbed group of TableViews.
  function tableGroup(prefix, tables, order, labels, opts) {
    const views = new Map();
    const tabs = h('div', { class: 'gp-tabs', role: 'tablist' });
    const body = h('div', { class: 'tv-group' });
    let active = null;
    const tabEls = new Map();
    const select = (key) => {
      if (!views.has(key)) return;
      active = key;
      for (const [k, v] of views) {
        const on = k === key;
        v.root.hidden = !on;
        tabEls.get(k).setAttribute('aria-selected', on ? 'true' : 'false');
        tabEls.get(k).tabIndex = on ? 0 : -1;
      }
      views.get(key).onShow();
    };
    for (const key of order) {
      const t = normTable(tables ? tables[key] : null);
      if (!t) continue;
      const id = prefix ? `${prefix}-${key}` : key;
      const view = new TableView(id, t, (opts && opts[key]) || {});
      views.set(key, view);
      const tab = h('button', { class: 'gp-tab', role: 'tab', type: 'button', id: `tab-${id}`, 'data-view': key, 'aria-controls': `view-${id}` },
        labels[key] || key, h('span', { class: 'gp-count', text: t.rows.length.toLocaleString('en-US') }));
      tab.addEventListener('click', () => select(key));
      tabEls.set(key, tab);
      tabs.appendChild(tab);
      view.root.hidden = true;
      view.root.setAttribute('role', 'tabpanel');
      body.appendChild(view.root);
    }
    return { tabs, body, views, select, get active() { return active; } };
  }

  // ================================================================ app state
  const app = {
    data: null, nodeIndex: new Map(), nodeTable: null, tables: null, ir: null, timeline: null, icicle: null,
    selectedNode: null, selbar: null,
  };

  function selectNode(id, from) {
    if (id == null || !isNum(id)) return;
    app.selectedNode = id;
    const t = app.tables;
    if (t && app.nodeTable) {
      app.nodeTable.setSelected(id);
      if (from !== 'table') {
        if (t.active !== 'node') t.select('node');
        app.nodeTable.revealId(id);
        app.nodeTable.setSelected(id);
        const sc = app.nodeTable.scroll;
        const r = sc.getBoundingClientRect();
        if (from !== 'ir-hot' && (r.top < 50 || r.bottom > window.innerHeight)) {
          document.getElementById('tables-section').scrollIntoView({ block: 'start' });
        }
      }
    }
    if (app.ir) app.ir.highlight(id, from !== 'ir');
    if (app.timeline) app.timeline.setSelected(id);
    updateSelbar();
  }

  function updateSelbar() {
    const bar = app.selbar;
    if (!bar) return;
    clear(bar);
    const id = app.selectedNode;
    const info = id == null ? null : app.nodeIndex.get(id);
    if (!info) {
      bar.appendChild(h('span', { class: 'gp-muted', text: app.nodeIndex.size ? 'Click a node row to highlight it in the IR and the timeline; click an IR line or a timeline event to find its row.' : 'No nodes.' }));
      return;
    }
    bar.append(
      h('span', { class: 'gp-kv' }, 'node ', h('b', { class: 'gp-mono', text: `#${id}` })),
      h('span', { class: 'gp-mono', text: info.name }),
      info.kind ? h('span', { class: 'gp-kv' }, 'kind ', h('b', { text: info.kind })) : null,
      info.module ? h('span', { class: 'gp-kv' }, 'module ', h('b', { class: 'gp-mono', text: info.module })) : null,
      isNum(info.mean_us) ? h('span', { class: 'gp-kv' }, 'time ', h('b', { text: `${fmtUs(info.mean_us)} us` }), isNum(info.percent) ? ` (${info.percent.toFixed(2)}%)` : '') : null,
      h('span', { style: 'flex:1 1 auto' }),
    );
    if (app.ir && app.ir.lineOf(id) >= 0) {
      bar.appendChild(h('button', { class: 'gp-btn', type: 'button', text: 'Show in IR \u2193', onclick: () => { app.ir.highlight(id, true); document.getElementById('ir-section').scrollIntoView({ block: 'start' }); } }));
    }
    if (app.timeline && app.timeline.hasNode(id)) {
      bar.appendChild(h('button', { class: 'gp-btn', type: 'button', text: 'Show in timeline \u2191', onclick: () => { app.timeline.focusNode(id); document.getElementById('timeline-section').scrollIntoView({ block: 'start' }); } }));
    }
  }

  // ================================================================ sections
  function section(id, title, sub) {
    const head = h('div', { class: 'gp-section-head' }, h('h2', { text: title }), sub ? h('span', { class: 'gp-sub', text: sub }) : null);
    const el = h('section', { class: 'gp-section', id }, head);
    return { el, head };
  }

  function guarded(name, container, fn) {
    try {
      return fn();
    } catch (e) {
      console.error(`graphprof: failed to render ${name}:`, e);
      container.appendChild(h('div', { class: 'gp-error', text: `Could not render ${name}: ${e && e.message ? e.message : e}` }));
      return null;
    }
  }

  // ---------------------------------------------------------------- summary
  function card(label, value, unit, sub) {
    const v = h('div', { class: 'gp-card-value' });
    add(v, value);
    if (unit) v.appendChild(h('span', { class: 'gp-unit', text: unit }));
    return h('div', { class: 'gp-card' }, h('div', { class: 'gp-card-label', text: label }), v, sub ? h('div', { class: 'gp-card-sub' }, sub) : null);
  }
  function fmtRange(a, b) { // "36.93 - 40.35 ms" when both ends share a unit
    const x = fmtTime(a); const y = fmtTime(b);
    const ux = x.slice(x.lastIndexOf(' ')); const uy = y.slice(y.lastIndexOf(' '));
    return ux === uy && isNum(a) && isNum(b) ? `${x.slice(0, -ux.length)} \u2013 ${y}` : `${x} \u2013 ${y}`;
  }
  function splitTime(us) { // "43.84 ms" -> ["43.84", "ms"]
    const s = fmtTime(us);
    const i = s.lastIndexOf(' ');
    return i > 0 ? [s.slice(0, i), s.slice(i + 1)] : [s, ''];
  }

  function renderSummary(main, d) {
    const s = d.summary && typeof d.summary === 'object' ? d.summary : {};
    const sec = h('section', { class: 'gp-section', id: 'summary' });
    main.appendChild(sec);
    guarded('summary', sec, () => {
      const hero = h('div', { class: 'gp-hero' },
        h('div', { class: 'gp-kicker', text: 'graphprof report' }),
        h('div', { class: 'gp-hero-title' }, h('h1', { id: 'model-name', text: asStr(s.model) || '(unnamed model)' })));
      const cards = h('div', { class: 'gp-cards' });
      const ru = s.run_us && typeof s.run_us === 'object' ? s.run_us : {};
      const [mv, mu] = splitTime(ru.mean);
      cards.appendChild(card('Mean run time', mv, mu,
        isNum(ru.mean) ? `${fmtUs(ru.mean)} us` + (isNum(ru.std) ? ` \u00b1 ${fmtUs(ru.std)} us` : '') : null));
      const [dv, du] = splitTime(ru.median);
      cards.appendChild(card('Median run time', dv, du,
        isNum(ru.min) || isNum(ru.max) ? `range ${fmtRange(ru.min, ru.max)}` : null));
      cards.appendChild(card('Runs', isNum(s.runs) ? String(s.runs) : '-', null,
        `${isNum(s.warmup) ? `${s.warmup} warm-up` : 'warm-up n/a'}${s.clock ? ` \u00b7 ${asStr(s.clock)}` : ''}`));
      const ver = s.verified === true ? h('span', { class: 'gp-badge good', text: '\u2713 verified' })
        : s.verified === false ? h('span', { class: 'gp-badge bad', text: '\u2717 mismatch' })
          : h('span', { class: 'gp-badge neutral', text: 'not checked' });
      cards.appendChild(card('Output check', ver, null, s.verify_detail ? asStr(s.verify_detail) : null));
      cards.appendChild(card('Coverage', isNum(s.coverage) ? (100 * s.coverage).toFixed(2) : '-', isNum(s.coverage) ? '%' : null,
        isNum(s.timer_ns) ? `timer ${s.timer_ns.toFixed(1)} ns per node${s.compensated ? ', compensated' : ''}` : 'timer cost n/a'));
      cards.appendChild(card('Nodes', isNum(s.nodes) ? s.nodes.toLocaleString('en-US') : '-', null,
        isNum(s.executions) ? `${s.executions.toLocaleString('en-US')} executions per run` : null));
      if (isNum(s.peak_bytes)) {
        const [pv, pu] = fmtBytes(s.peak_bytes).split(' ');
        let sub = null;
        if (isNum(s.peak_node)) {
          const label = `#${s.peak_node}${s.peak_node_name ? ` ${asStr(s.peak_node_name)}` : ''}`;
          sub = app.nodeIndex.has(s.peak_node)
            ? h('button', { class: 'gp-link', type: 'button', id: 'peak-node-link', title: 'show this node', text: label, onclick: () => selectNode(s.peak_node, 'summary') })
            : label;
        }
        cards.appendChild(card('Peak memory', pv, pu, sub));
      } else {
        cards.appendChild(card('Peak memory', '-', null, 'not measured'));
      }
      sec.append(hero, cards);
      const lines = asArray(s.lines).filter((l) => Array.isArray(l));
      if (lines.length) {
        const dl = h('dl', { class: 'gp-lines' });
        for (const l of lines) dl.append(h('dt', { text: asStr(l[0]) }), h('dd', { text: asStr(l[1]) }));
        sec.appendChild(dl);
      }
    });
  }

  // ---------------------------------------------------------------- diff
  function renderDiff(main, d) {
    const df = d.diff;
    if (!df || typeof df !== 'object') return;
    const { el } = section('diff', 'Comparison', 'base \u2192 current');
    main.appendChild(el);
    guarded('diff', el, () => {
      const model = (label, name, total) => h('div', { class: 'gp-diff-model' },
        h('div', { class: 'gp-card-label', text: label }),
        h('div', { class: 'gp-mono', text: asStr(name) || '-' }),
        h('div', { class: 'gp-big', text: isNum(total) ? fmtTime(total) : '-' }),
        isNum(total) ? h('div', { class: 'gp-card-sub', text: `${fmtUs(total)} us per run` }) : null);
      const sp = df.speedup;
      const spCls = isNum(sp) && sp > 0 ? (sp > 1 ? 'better' : sp < 1 ? 'worse' : '') : '';
      const spText = isNum(sp) && sp > 0 ? `${sp.toFixed(2)}\u00d7` : '-';
      const spWord = isNum(sp) && sp > 0 ? (sp > 1 ? 'faster' : sp < 1 ? 'slower' : 'same speed') : '';
      const spEl = h('div', { class: 'gp-diff-model' },
        h('div', { class: 'gp-card-label', text: 'Speedup' }),
        h('div', { class: `gp-speedup-big ${spCls}`, id: 'diff-speedup', text: spText }),
        h('div', { class: 'gp-card-sub' }, spWord,
          isNum(df.matched_time_fraction) ? ` \u00b7 ${(100 * df.matched_time_fraction).toFixed(1)}% of time matched` : ''),
        df.total ? h('div', { class: 'gp-card-sub', id: 'diff-verdict' },
          `median ${fmtChange(df.total.change)} `,
          h('span', { class: formatCell('verdict', df.total.verdict)[1], text: asStr(df.total.verdict) })) : null,
        df.noise_note ? h('div', { class: 'gp-card-sub dim', text: df.noise_note }) : null);
      el.appendChild(h('div', { class: 'gp-diff-models', style: 'grid-template-columns: 1fr auto 1fr 220px' },
        model('Base', df.base_model, df.base_total_us), h('div', { class: 'gp-diff-arrow', text: '\u2192' }),
        model('Current', df.current_model, df.current_total_us), spEl));
      const g = tableGroup('diff', df.tables || {}, ['module', 'kind', 'node'], { module: 'Modules', kind: 'Kinds', node: 'Nodes' });
      if (!g.views.size) { el.appendChild(h('div', { class: 'gp-empty', text: 'No comparison tables.' })); return; }
      el.appendChild(h('div', { class: 'gp-section-head', style: 'border-bottom:0;padding-bottom:0' }, g.tabs,
        h('span', { class: 'gp-hint', text: 'speedup = base / current; change: median with its 95% interval (whisker: -50%..+50%); green is faster, red is slower, only where significant' })));
      el.appendChild(g.body);
      app.diffTables = g;
      pendingShows.push(() => g.select(g.views.has('module') ? 'module' : [...g.views.keys()][0]));
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
    const { el } = section('roofline-section', 'Roofline', `peak ${rf.peak_gflops.toFixed(1)} GFLOP/s, ${rf.peak_gbps.toFixed(1)} GB/s (${asStr(rf.source)})`);
    main.appendChild(el);
    guarded('roofline', el, () => {
      const pts = rf.points.filter((p) => Array.isArray(p) && isNum(p[1]) && isNum(p[2]) && p[1] > 0 && p[2] > 0);
      const ns = 'http://www.w3.org/2000/svg';
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
      const svg = document.createElementNS(ns, 'svg');
      svg.setAttribute('id', 'roofline-chart');
      svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
      svg.setAttribute('width', String(W));
      svg.setAttribute('height', String(H));
      const add = (tag, attrs, text) => {
        const e = document.createElementNS(ns, tag);
        for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
        if (text != null) e.textContent = text;
        svg.appendChild(e);
        return e;
      };
      for (let k = lx0; k <= lx1; k++) {
        add('line', { x1: X(10 ** k), x2: X(10 ** k), y1: T, y2: H - B, class: 'gp-roof-grid' });
        add('text', { x: X(10 ** k), y: H - B + 14, 'text-anchor': 'middle', class: 'gp-roof-tick' }, `1e${k}`);
      }
      for (let k = ly0; k <= ly1; k++) {
        add('line', { x1: L, x2: W - R, y1: Y(10 ** k), y2: Y(10 ** k), class: 'gp-roof-grid' });
        add('text', { x: L - 4, y: Y(10 ** k) + 4, 'text-anchor': 'end', class: 'gp-roof-tick' }, `1e${k}`);
      }
      const xmin = 10 ** lx0, xmax = 10 ** lx1;
      // A roof starts where it enters the chart (at the bottom or the left edge).
      const from = (gbps) => Math.max(xmin, 10 ** ly0 / gbps);
      for (const b of caches) {
        const line = add('line', { x1: X(from(b[1])), y1: Y(from(b[1]) * b[1]), x2: X(rf.peak_gflops / b[1]), y2: Y(rf.peak_gflops), class: 'gp-roof-cache' });
        const title = document.createElementNS(ns, 'title');
        title.textContent = `${b[1].toFixed(1)} GB/s with a working set of ${fmtBytes(b[0])}`;
        line.appendChild(title);
      }
      add('line', { x1: X(from(rf.peak_gbps)), y1: Y(from(rf.peak_gbps) * rf.peak_gbps), x2: X(ridge), y2: Y(rf.peak_gflops), class: 'gp-roof-memory' });
      add('line', { x1: X(ridge), y1: Y(rf.peak_gflops), x2: X(xmax), y2: Y(rf.peak_gflops), class: 'gp-roof-compute' });
      add('text', { x: X(xmax) - 4, y: Y(rf.peak_gflops) - 4, 'text-anchor': 'end', class: 'gp-roof-label' }, `${rf.peak_gflops.toFixed(1)} GFLOP/s`);
      add('text', { x: X(from(rf.peak_gbps)) + 4, y: Y(from(rf.peak_gbps) * rf.peak_gbps) - 6, class: 'gp-roof-label' }, `${rf.peak_gbps.toFixed(1)} GB/s`);
      add('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', class: 'gp-roof-axis' }, 'arithmetic intensity (FLOP/byte)');
      add('text', { x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, 'text-anchor': 'middle', class: 'gp-roof-axis' }, 'achieved GFLOP/s');
      const maxUs = Math.max(1e-9, ...pts.map((p) => (isNum(p[3]) ? p[3] : 0)));
      for (const p of pts) {
        const r = 2 + 10 * Math.sqrt(Math.max(0, isNum(p[3]) ? p[3] : 0) / maxUs);
        const c = add('circle', { cx: X(p[1]), cy: Y(p[2]), r: r.toFixed(2), class: 'gp-roof-point', 'data-id': p[0] });
        const title = document.createElementNS(ns, 'title');
        title.textContent = `${asStr(p[5])}: ${p[2].toPrecision(3)} GFLOP/s at ${p[1].toPrecision(3)} FLOP/B` +
          (isNum(p[4]) ? `, ${(100 * p[4]).toFixed(1)}% of attainable` : '') + (isNum(p[3]) ? `, ${fmtUs(p[3])} us` : '');
        c.appendChild(title);
        c.addEventListener('click', () => selectNode(p[0], 'roofline'));
      }
      el.appendChild(h('div', { class: 'gp-roofline' }, svg));
      el.appendChild(h('div', { class: 'gp-hint', text: `${pts.length} nodes; area: self time; the lines: what this machine can do at each intensity` +
        (caches.length ? `; dashed: the same with smaller working sets (in the caches; hover for the size)` : '') }));
    });
  }

  // ---------------------------------------------------------------- icicle
  class Icicle {
    constructor(tree, container, crumbs, resetBtn) {
      this.container = container;
      this.crumbs = crumbs;
      this.resetBtn = resetBtn;
      this.rowH = 22;
      this.root = this.normalize(tree, null, 0);
      this.byPath = new Map();
      const stack = [this.root];
      while (stack.length) {
        const n = stack.pop();
        if (!this.byPath.has(n.path)) this.byPath.set(n.path, n);
        for (const c of n.children) stack.push(c);
      }
      // colour: by top-level module (child of the root)
      this.root.children.forEach((c, i) => this.paint(c, PALETTE[i % PALETTE.length]));
      this.root.color = '#94a3b8';
      this.zoomNode = this.root;
      this.charW = textWidth('abcdefghijklmnopqrstuvwxyz0123456789._', `11px ${getComputedStyleFont()}`) / 38;
      container.addEventListener('mousemove', (e) => this.onHover(e));
      container.addEventListener('mouseleave', () => tooltip.hide());
      container.addEventListener('click', (e) => {
        const r = e.target.closest('rect[data-path]');
        if (!r) return;
        const node = this.byPath.get(r.getAttribute('data-path'));
        if (!node) return;
        if (node === this.zoomNode && node.parent) this.zoom(node.parent);
        else this.zoom(node);
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

    paint(n, base) {
      const stack = [[n, 0]];
      while (stack.length) {
        const [x, k] = stack.pop();
        x.color = mix(base, Math.min(0.62, k * 0.16));
        for (const c of x.children) stack.push([c, k + 1]);
      }
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
        const rect = svg('rect', {
          x: x.toFixed(2), y, width: Math.max(0.5, rw - 0.5).toFixed(2), height: rowH - 1,
          fill: n.color || '#94a3b8', 'data-path': n.path, class: n === root && n.parent ? 'ic-root' : null,
        });
        g.appendChild(rect);
        const maxChars = Math.floor((rw - 8) / charW);
        if (maxChars >= 3) {
          let label = n === this.root ? '(root)' : (n === root ? n.path : this.shortName(n));
          const t = `${label}  ${fmtNs(n.time)}`;
          if (t.length <= maxChars) label = t;
          else if (label.length > maxChars) label = `${label.slice(0, maxChars - 1)}\u2026`;
          const text = svg('text', { x: (x + 4).toFixed(2), y: y + (rowH - 1) / 2 });
          text.textContent = label;
          g.appendChild(text);
        }
        let cx = x;
        const kids = [];
        for (const ch of n.children) { kids.push([ch, cx]); cx += ch.time * scale; }
        for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      }
      const height = (maxDepth + 1) * rowH;
      const s = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'module time icicle chart' });
      s.appendChild(g);
      clear(c);
      c.appendChild(s);
      this.renderCrumbs();
    }

    renderCrumbs() {
      const cr = this.crumbs;
      clear(cr);
      const chain = [];
      for (let n = this.zoomNode; n; n = n.parent) chain.unshift(n);
      chain.forEach((n, i) => {
        if (i) cr.appendChild(h('span', { class: 'sep', text: '\u203a' }));
        const label = n.parent ? n.name : '(root)';
        if (i === chain.length - 1) cr.appendChild(h('span', { class: 'cur', text: label }));
        else cr.appendChild(h('button', { type: 'button', text: label, 'data-path': null, onclick: () => this.zoom(n) }));
      });
      this.resetBtn.disabled = this.zoomNode === this.root;
    }

    onHover(e) {
      const r = e.target.closest && e.target.closest('rect[data-path]');
      if (!r) { tooltip.hide(); return; }
      const n = this.byPath.get(r.getAttribute('data-path'));
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
    const { el, head } = section('icicle-section', 'Module time', 'icicle chart: width = time, rows = module depth');
    main.appendChild(el);
    guarded('icicle', el, () => {
      const t = d.tree;
      if (!t || typeof t !== 'object') { el.appendChild(h('div', { class: 'gp-empty', text: 'No module tree in this report.' })); return; }
      const crumbs = h('nav', { class: 'ic-crumbs', id: 'icicle-crumbs', 'aria-label': 'icicle zoom path' });
      const reset = h('button', { class: 'gp-btn', type: 'button', id: 'icicle-reset', text: 'Reset zoom' });
      head.append(h('span', { class: 'gp-spacer' }), h('span', { class: 'gp-hint', text: 'click a box to zoom \u00b7 click the top box to zoom out' }), reset);
      const box = h('div', { id: 'icicle' });
      el.appendChild(h('div', { class: 'ic-wrap' }, h('div', { style: 'margin-bottom:8px' }, crumbs), box));
      const ic = new Icicle(t, box, crumbs, reset);
      app.icicle = ic;
      ic.render();
    });
  }

  // ---------------------------------------------------------------- timeline
  class Timeline {
    constructor(tl, host) {
      this.host = host;
      const ev = asArray(tl.events).filter((e) => Array.isArray(e) && isNum(e[1]) && isNum(e[2]));
      const n = ev.length;
      this.n = n;
      this.ids = new Float64Array(n); this.st = new Float64Array(n); this.du = new Float64Array(n);
      this.dp = new Int32Array(n);
      let maxEnd = 0; let maxDepth = 0;
      for (let i = 0; i < n; i++) {
        const e = ev[i];
        this.ids[i] = isNum(e[0]) ? e[0] : -1; this.st[i] = e[1]; this.du[i] = Math.max(0, e[2]);
        const d = isNum(e[3]) ? clamp(Math.floor(e[3]), 0, 63) : 0;
        this.dp[i] = d;
        if (d > maxDepth) maxDepth = d;
        if (e[1] + e[2] > maxEnd) maxEnd = e[1] + e[2];
      }
      this.maxDepth = n ? maxDepth : 0;
      // per-depth index lists sorted by start
      this.byDepth = [];
      for (let d = 0; d <= this.maxDepth; d++) this.byDepth.push([]);
      for (let i = 0; i < n; i++) this.byDepth[this.dp[i]].push(i);
      for (const list of this.byDepth) {
        let sorted = true;
        for (let j = 1; j < list.length; j++) if (this.st[list[j]] < this.st[list[j - 1]]) { sorted = false; break; }
        if (!sorted) list.sort((a, b) => this.st[a] - this.st[b]);
      }
      this.byDepth = this.byDepth.map((l) => Int32Array.from(l));
      this.duration = isNum(tl.duration_ns) && tl.duration_ns > 0 ? Math.max(tl.duration_ns, maxEnd) : Math.max(maxEnd, 1);
      const mem = asArray(tl.memory).filter((p) => Array.isArray(p) && isNum(p[0]) && isNum(p[1]));
      mem.sort((a, b) => a[0] - b[0]);
      this.memT = Float64Array.from(mem.map((p) => p[0]));
      this.memB = Float64Array.from(mem.map((p) => p[1]));
      this.peak = tl.peak && isNum(tl.peak.t_ns) ? tl.peak : null;
      let maxB = 0;
      for (let i = 0; i < this.memB.length; i++) if (this.memB[i] > maxB) maxB = this.memB[i];
      if (this.peak && isNum(this.peak.bytes)) maxB = Math.max(maxB, this.peak.bytes);
      this.maxBytes = maxB;
      this.hasMem = this.memT.length > 0 || (this.peak && isNum(this.peak.bytes));
      this.t0 = 0; this.t1 = this.duration;
      this.rowH = 20; this.axisH = 22;
      this.charW = textWidth('abcdefghijklmnopqrstuvwxyz_./0123456789', `11px ${getComputedStyleFont()}`) / 39;
      this.selected = null;
      this.colorBy = 'kind';
      this.computeColors();
      this.build();
    }

    hasNode(id) { if (!this.idSet) this.idSet = new Set(this.ids); return this.idSet.has(id); }

    computeColors() {
      const info = app.nodeIndex;
      const cat = (id) => {
        const x = info.get(id);
        if (!x) return '?';
        if (this.colorBy === 'kind') return x.kind || '?';
        const m = x.module || '';
        return m ? m.split('.')[0] : '(top level)';
      };
      const totals = new Map();
      const cats = new Array(this.n);
      for (let i = 0; i < this.n; i++) {
        const c = cat(this.ids[i]);
        cats[i] = c;
        totals.set(c, (totals.get(c) || 0) + this.du[i]);
      }
      const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]);
      const colorOf = new Map();
      ranked.forEach(([c], i) => colorOf.set(c, i < PALETTE.length ? PALETTE[i] : OTHER_COLOR));
      this.legend = ranked.slice(0, PALETTE.length).map(([c, t]) => [c, colorOf.get(c), t]);
      this.legendOther = ranked.length > PALETTE.length;
      this.col = new Array(this.n);
      for (let i = 0; i < this.n; i++) this.col[i] = colorOf.get(cats[i]);
    }

    build() {
      const host = this.host;
      this.evCanvas = h('canvas', { id: 'timeline-events', 'aria-label': 'timeline of node executions' });
      this.memCanvas = h('canvas', { id: 'timeline-memory', 'aria-label': 'live bytes over time' });
      this.range = h('span', { class: 'tl-range' });
      this.legendEl = h('div', { class: 'tl-legend' });
      const wrap = h('div', { class: 'tl-canvas-wrap' }, this.evCanvas);
      host.appendChild(wrap);
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
      clear(this.legendEl);
      for (const [c, color] of this.legend) {
        this.legendEl.appendChild(h('span', { class: 'item', title: c }, h('span', { class: 'sw', style: `background:${color}` }), c));
      }
      if (this.legendOther) this.legendEl.appendChild(h('span', { class: 'item' }, h('span', { class: 'sw', style: `background:${OTHER_COLOR}` }), 'other'));
    }

    setColorBy(v) { this.colorBy = v; this.computeColors(); this.renderLegend(); this.draw(); }

    xOf(t) { return (t - this.t0) * this.W / (this.t1 - this.t0); }
    tOf(x) { return this.t0 + x * (this.t1 - this.t0) / this.W; }

    setupCanvas(cv, cssH) {
      const dpr = window.devicePixelRatio || 1;
      const W = Math.max(200, cv.parentNode.clientWidth || 1000);
      cv.style.height = `${cssH}px`;
      if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(cssH * dpr)) {
        cv.width = Math.round(W * dpr); cv.height = Math.round(cssH * dpr);
      }
      const ctx = cv.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
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
      const evH = this.axisH + (this.maxDepth + 1) * this.rowH + 4;
      const [ctx, W] = this.setupCanvas(this.evCanvas, evH);
      this.W = W;
      const span = this.t1 - this.t0;
      const k = W / span;
      ctx.clearRect(0, 0, W, evH);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, W, evH);
      // axis + grid
      const step = this.niceStep(span, W);
      ctx.font = `10.5px ${getComputedStyleFont()}`;
      ctx.textBaseline = 'middle';
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
      const info = app.nodeIndex;
      ctx.font = `11px ${getComputedStyleFont()}`;
      const selRects = [];
      for (let d = 0; d <= this.maxDepth; d++) {
        const list = this.byDepth[d];
        const y = this.axisH + 2 + d * rowH;
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
      ctx.strokeStyle = '#f59e0b';
      for (const [x, y, w] of selRects) ctx.strokeRect(x - 1, y - 1, w + 2, rowH);
      this.drawPeak(ctx, this.axisH, evH);
      this.range.textContent = this.t0 <= 0 && this.t1 >= this.duration ? `whole run: ${fmtNs(this.duration)}` : `${fmtNs(this.t0)} \u2013 ${fmtNs(this.t1)} (${fmtNs(span)} of ${fmtNs(this.duration)})`;
      if (this.hasMem) this.drawMemory();
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

    drawPeak(ctx, y0, y1) {
      if (!this.peak) return;
      const x = this.xOf(this.peak.t_ns);
      if (x < -1 || x > this.W + 1) return;
      ctx.save();
      ctx.strokeStyle = 'rgba(220, 38, 38, 0.85)';
      ctx.setLineDash([4, 3]);
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(Math.round(x) + 0.5, y0); ctx.lineTo(Math.round(x) + 0.5, y1); ctx.stroke();
      ctx.restore();
    }

    drawMemory() {
      const H = 90;
      const [ctx, W] = this.setupCanvas(this.memCanvas, H);
      const top = 12; const bottom = H - 16;
      ctx.fillStyle = '#ffffff'; ctx.fillRect(0, 0, W, H);
      ctx.fillStyle = '#e2e8f0'; ctx.fillRect(0, bottom, W, 1);
      ctx.font = `10.5px ${getComputedStyleFont()}`;
      ctx.textBaseline = 'middle';
      const maxB = this.maxBytes > 0 ? this.maxBytes : 1;
      const yOf = (b) => bottom - (b / maxB) * (bottom - top);
      // grid lines at 50% / 100%
      ctx.fillStyle = '#f1f5f9';
      ctx.fillRect(0, Math.round(yOf(maxB)), W, 1);
      ctx.fillRect(0, Math.round(yOf(maxB / 2)), W, 1);
      const T = this.memT; const B = this.memB; const n = T.length;
      if (n) {
        // Aggregate the step function per pixel column: min, max over [t(px), t(px + 1)).
        const cols = Math.ceil(W);
        const cMin = new Float64Array(cols); const cMax = new Float64Array(cols);
        const k = W / (this.t1 - this.t0);
        let j = this.upperBoundT(this.t0) - 1;        // last point at or before t0
        let cur = j >= 0 ? B[j] : NaN;
        j++;
        const lastT = Math.min(this.t1, this.duration);
        const lastCol = Math.min(cols, Math.ceil((lastT - this.t0) * k));
        for (let c = 0; c < lastCol; c++) {
          let lo = cur; let hi = cur;
          const tEnd = this.t0 + (c + 1) / k;
          while (j < n && T[j] < tEnd) {
            cur = B[j];
            if (!(lo <= cur)) lo = cur;
            if (!(hi >= cur)) hi = cur;
            j++;
          }
          cMin[c] = lo; cMax[c] = hi;
        }
        const valid = (c) => cMax[c] === cMax[c];   // not NaN (before the first sample)
        // area under the max
        ctx.beginPath();
        let open = false;
        for (let c = 0; c < lastCol; c++) {
          if (!valid(c)) continue;
          const y = yOf(cMax[c]);
          if (!open) { ctx.moveTo(c, bottom); ctx.lineTo(c, y); open = true; }
          ctx.lineTo(c, y); ctx.lineTo(c + 1, y);
        }
        if (open) { ctx.lineTo(lastCol, bottom); ctx.closePath(); ctx.fillStyle = 'rgba(37, 99, 235, 0.13)'; ctx.fill(); }
        // min..max band where the value moves within a pixel
        ctx.fillStyle = 'rgba(37, 99, 235, 0.28)';
        for (let c = 0; c < lastCol; c++) {
          if (!valid(c) || cMax[c] - cMin[c] <= 0) continue;
          const y0 = yOf(cMax[c]); const y1 = yOf(cMin[c]);
          if (y1 - y0 >= 1) ctx.fillRect(c, y0, 1, y1 - y0);
        }
        // the max as a line
        ctx.beginPath();
        open = false;
        let prevY = 0;
        for (let c = 0; c < lastCol; c++) {
          if (!valid(c)) continue;
          const y = Math.round(yOf(cMax[c])) + 0.5;
          if (!open) { ctx.moveTo(c, y); open = true; } else if (y !== prevY) ctx.lineTo(c, y);
          ctx.lineTo(c + 1, y);
          prevY = y;
        }
        ctx.strokeStyle = '#2563eb';
        ctx.lineWidth = 1.25;
        ctx.stroke();
      }
      // y labels
      ctx.fillStyle = '#64748b';
      ctx.textAlign = 'right';
      ctx.fillText(fmtBytes(maxB), W - 4, yOf(maxB) - 0.5 > 8 ? yOf(maxB) - 1 : yOf(maxB) + 7);
      ctx.fillText('0', W - 4, bottom + 8);
      ctx.textAlign = 'left';
      // peak marker
      if (this.peak && isNum(this.peak.bytes)) {
        const x = this.xOf(this.peak.t_ns);
        if (x >= -1 && x <= W + 1) {
          this.drawPeak(ctx, 0, bottom);
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
    }

    lowerBound(list, t) { // first j with st[list[j]] >= t
      let lo = 0; let hi = list.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (this.st[list[m]] < t) lo = m + 1; else hi = m; }
      return lo;
    }
    upperBoundT(t) { let lo = 0; let hi = this.memT.length; while (lo < hi) { const m = (lo + hi) >> 1; if (this.memT[m] <= t) lo = m + 1; else hi = m; } return lo; }

    hit(x, y) {
      const d = Math.floor((y - this.axisH - 2) / this.rowH);
      if (d < 0 || d > this.maxDepth) return -1;
      const list = this.byDepth[d];
      const t = this.tOf(x);
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
        const dt = -dx * span / this.W;
        let t0 = drag.t0 + dt;
        t0 = clamp(t0, 0, Math.max(0, this.duration - span));
        this.t0 = t0; this.t1 = t0 + span;
        tooltip.hide();
        this.requestDraw();
      });
      window.addEventListener('mouseup', (e) => {
        if (!drag) return;
        const wasDrag = drag.moved;
        drag = null;
        cv.classList.remove('dragging');
        if (!wasDrag && e.target === cv) {
          const r = cv.getBoundingClientRect();
          const i = this.hit(e.clientX - r.left, e.clientY - r.top);
          if (i >= 0 && this.ids[i] >= 0) selectNode(this.ids[i], 'timeline');
        }
      });
      cv.addEventListener('mousemove', (e) => {
        if (drag && drag.moved) return;
        const r = cv.getBoundingClientRect();
        const i = this.hit(e.clientX - r.left, e.clientY - r.top);
        if (i < 0) { tooltip.hide(); cv.style.cursor = ''; return; }
        cv.style.cursor = 'pointer';
        const x = app.nodeIndex.get(this.ids[i]);
        const rows = [];
        if (x && x.kind) rows.push(['kind', x.kind]);
        if (x && x.module) rows.push(['module', x.module]);
        rows.push(['start', fmtNs(this.st[i])], ['duration', `${fmtUs(this.du[i] / 1e3)} us`], ['depth', String(this.dp[i])]);
        tooltip.show(`#${this.ids[i]} ${x ? x.name : ''}`, rows, e.clientX, e.clientY);
      });
      cv.addEventListener('mouseleave', () => tooltip.hide());
      cv.addEventListener('wheel', (e) => {
        if (!(e.ctrlKey || e.metaKey || e.altKey)) return;
        e.preventDefault();
        const r = cv.getBoundingClientRect();
        this.zoomAt(e.clientX - r.left, e.deltaY < 0 ? 0.8 : 1.25);
      }, { passive: false });
      cv.addEventListener('dblclick', () => this.reset());
      if (this.hasMem) {
        const mc = this.memCanvas;
        mc.addEventListener('mousemove', (e) => {
          const r = mc.getBoundingClientRect();
          const t = this.tOf(e.clientX - r.left);
          const j = this.upperBoundT(t) - 1;
          if (j < 0) { tooltip.hide(); return; }
          tooltip.show(`live ${fmtBytes(this.memB[j])}`, [['time', fmtNs(t)]], e.clientX, e.clientY);
        });
        mc.addEventListener('mouseleave', () => tooltip.hide());
      }
    }

    requestDraw() {
      if (this.raf) return;
      this.raf = requestAnimationFrame(() => { this.raf = 0; this.draw(); });
    }

    zoomAt(x, f) {
      const span = this.t1 - this.t0;
      const minSpan = Math.min(this.duration, 1000);  // 1 us
      const ns = clamp(span * f, minSpan, this.duration);
      const tx = this.tOf(x);
      let t0 = tx - (x / this.W) * ns;
      t0 = clamp(t0, 0, this.duration - ns);
      this.t0 = t0; this.t1 = t0 + ns;
      this.requestDraw();
    }
    reset() { this.t0 = 0; this.t1 = this.duration; this.requestDraw(); }

    setSelected(id) { this.selected = id; this.requestDraw(); }

    focusNode(id) {
      let best = -1;
      for (let i = 0; i < this.n; i++) if (this.ids[i] === id && (best < 0 || this.du[i] > this.du[best])) best = i;
      if (best < 0) return;
      const span = Math.min(this.duration, Math.max(this.du[best] * 8, 2000));
      const c = this.st[best] + this.du[best] / 2;
      this.t0 = clamp(c - span / 2, 0, this.duration - span); this.t1 = this.t0 + span;
      this.selected = id;
      this.requestDraw();
    }
  }

  function renderTimeline(main, d) {
    const tl = d.timeline;
    const { el, head } = section('timeline-section', 'Timeline', tl && isNum(tl.run) ? `run ${tl.run}` : null);
    main.appendChild(el);
    guarded('timeline', el, () => {
      if (!tl || typeof tl !== 'object' || (!asArray(tl.events).length && !asArray(tl.memory).length)) {
        el.appendChild(h('div', { class: 'gp-empty', text: 'No timeline recorded for this report.' }));
        return;
      }
      const host = h('div', { class: 'tl-wrap' });
      el.appendChild(host);
      const t = new Timeline(tl, host);
      app.timeline = t;
      const sel = h('select', { class: 'gp-select', id: 'timeline-color', 'aria-label': 'colour events by' },
        h('option', { value: 'kind', text: 'kind' }), h('option', { value: 'module', text: 'top-level module' }));
      sel.addEventListener('change', () => t.setColorBy(sel.value));
      const btn = (text, title, fn, id) => h('button', { class: 'gp-btn', type: 'button', text, title, onclick: fn, id });
      head.append(h('span', { class: 'gp-spacer' }), t.range,
        h('span', { class: 'gp-label', text: 'colour by' }), sel,
        h('span', { class: 'gp-btn-group' },
          btn('+', 'zoom in', () => t.zoomAt(t.W / 2, 0.5), 'timeline-zoom-in'),
          btn('\u2212', 'zoom out', () => t.zoomAt(t.W / 2, 2), 'timeline-zoom-out'),
          btn('Reset', 'show the whole run', () => t.reset(), 'timeline-reset')),
        h('span', { class: 'gp-hint', text: 'drag to pan \u00b7 Ctrl+wheel to zoom' }));
      t.draw();
    });
  }

  // ---------------------------------------------------------------- IR
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
      this.inner = h('div', { class: 'ir-inner' });
      this.inner.style.height = `${lines.length * this.lineH}px`;
      this.inner.style.minWidth = `calc(${Math.min(maxLen, 2000) + 2}ch + 140px)`;
      this.scroll = h('div', { class: 'ir-scroll', id: 'ir' }, this.inner);
      this.scroll.style.height = `${Math.min(560, lines.length * this.lineH + 18)}px`;
      host.appendChild(this.scroll);
      this.rendered = [-1, -1];
      let raf = 0;
      this.scroll.addEventListener('scroll', () => {
        if (raf) return;
        raf = requestAnimationFrame(() => { raf = 0; this.render(); });
      }, { passive: true });
      this.inner.addEventListener('click', (e) => {
        const el = e.target.closest('.ir-line[data-line-node]');
        if (!el) return;
        const id = Number(el.getAttribute('data-line-node'));
        this.highlight(id, false);
        selectNode(id, 'ir');
      });
      this.inner.addEventListener('mousemove', (e) => {
        const el = e.target.closest('.ir-line[data-line-node]');
        if (!el) { tooltip.hide(); return; }
        const id = Number(el.getAttribute('data-line-node'));
        const x = app.nodeIndex.get(id);
        const l = this.lines[Number(el.getAttribute('data-line'))];
        const rows = [['share', isNum(l[2]) ? fmtPct(100 * l[2]) : '-']];
        if (x) { if (isNum(x.mean_us)) rows.unshift(['time', `${fmtUs(x.mean_us)} us`]); if (x.module) rows.push(['module', x.module]); }
        rows.push(['', 'click to find the node row']);
        tooltip.show(`#${id} ${x ? x.name : ''}`, rows, e.clientX, e.clientY);
      });
      this.inner.addEventListener('mouseleave', () => tooltip.hide());
    }

    // Annotation for node lines that come without one ("  # 12.3 us 0.45% (x8) | module"), built
    // from the node table, so the data may carry bare IR lines to save space.
    annotation(id) {
      const x = app.nodeIndex.get(id);
      if (!x || !isNum(x.mean_us)) return '';
      let a = `${fmtUs(x.mean_us)} us`;
      if (isNum(x.percent)) a += ` ${x.percent.toFixed(2)}%`;
      if (isNum(x.calls) && x.calls !== 1) a += ` (x${x.calls})`;
      if (x.module) a += ` | ${x.module}`;
      return a;
    }

    lineOf(id) { const i = this.lineByNode.get(id); return i === undefined ? -1 : i; }

    heat(share) {
      if (!isNum(share) || share <= 0 || this.maxShare <= 0) return 0;
      return Math.sqrt(Math.min(1, share / this.maxShare));
    }

    render(force) {
      const n = this.lines.length;
      const st = this.scroll.scrollTop;
      const vh = this.scroll.clientHeight || 500;
      const over = 20;
      const start = Math.max(0, Math.floor(st / this.lineH) - over);
      const end = Math.min(n, Math.ceil((st + vh) / this.lineH) + over);
      if (!force && start === this.rendered[0] && end === this.rendered[1]) return;
      this.rendered = [start, end];
      const frag = document.createDocumentFragment();
      const digits = String(n).length;
      for (let i = start; i < end; i++) {
        const [text, node, share] = this.lines[i];
        const el = document.createElement('div');
        el.className = 'ir-line';
        el.style.top = `${i * this.lineH}px`;
        el.setAttribute('data-line', String(i));
        const hasNode = isNum(node) && node >= 0;
        if (hasNode) {
          el.setAttribute('data-line-node', String(node));
          el.className += ' has-node';
          if (node === this.hl) el.className += ' hl';
        }
        const heat = this.heat(share);
        if (heat > 0.03) el.style.backgroundColor = `rgba(239, 68, 68, ${(0.55 * heat).toFixed(3)})`;
        const ln = document.createElement('span');
        ln.className = 'ln';
        ln.textContent = String(i + 1).padStart(digits, ' ');
        el.appendChild(ln);
        const hb = document.createElement('span');
        hb.className = hasNode ? 'hb' : 'hb none';
        if (hasNode && heat > 0) {
          const bar = document.createElement('i');
          bar.style.width = `${Math.max(1, Math.round(40 * share / this.maxShare))}px`;
          hb.appendChild(bar);
        }
        el.appendChild(hb);
        const cut = hasNode ? text.lastIndexOf('  # ') : -1;
        if (cut > 0) {
          el.appendChild(document.createTextNode(text.slice(0, cut + 2)));
          const ann = document.createElement('span');
          ann.className = 'ann';
          ann.textContent = text.slice(cut + 2);
          el.appendChild(ann);
        } else {
          el.appendChild(document.createTextNode(text));
          const gen = hasNode ? this.annotation(node) : '';
          if (gen) {
            const ann = document.createElement('span');
            ann.className = 'ann';
            ann.textContent = `  # ${gen}`;
            el.appendChild(ann);
          }
        }
        frag.appendChild(el);
      }
      clear(this.inner);
      this.inner.appendChild(frag);
    }

    highlight(id, scroll) {
      this.hl = id;
      const i = this.lineOf(id);
      if (scroll && i >= 0) {
        const vh = this.scroll.clientHeight || 400;
        const top = i * this.lineH;
        if (top < this.scroll.scrollTop || top + this.lineH > this.scroll.scrollTop + vh) {
          this.scroll.scrollTop = Math.max(0, top - vh / 2);
        }
        this.render(true);
      }
      for (const el of this.inner.querySelectorAll('.ir-line.hl')) el.classList.remove('hl');
      if (i >= 0) {
        const el = this.inner.querySelector(`.ir-line[data-line="${i}"]`);
        if (el) el.classList.add('hl');
      }
    }
  }

  function renderIr(main, d) {
    const { el, head } = section('ir-section', 'Annotated IR', 'background = share of run time');
    main.appendChild(el);
    guarded('IR', el, () => {
      const lines = asArray(d.ir).filter(Array.isArray).map((l) => [asStr(l[0]), isNum(l[1]) ? l[1] : -1, isNum(l[2]) ? l[2] : 0]);
      if (!lines.length) { el.appendChild(h('div', { class: 'gp-empty', text: 'No IR in this report.' })); return; }
      head.append(h('span', { class: 'gp-spacer' }), h('span', { class: 'gp-sub', text: `${lines.length.toLocaleString('en-US')} lines` }),
        h('span', { class: 'ir-legend' }, 'cold', h('span', { class: 'ramp' }), 'hot'),
        h('span', { class: 'gp-hint', text: 'click a node line to find its table row' }));
      const ir = new IrView(lines, el);
      app.ir = ir;
      ir.render(true);
      let hot = -1;
      for (let i = 0; i < lines.length; i++) if (lines[i][1] >= 0 && (hot < 0 || lines[i][2] > lines[hot][2])) hot = i;
      if (hot >= 0 && lines[hot][2] > 0) {
        head.appendChild(h('button', { class: 'gp-btn', type: 'button', id: 'ir-hottest', text: 'Hottest line', title: 'select the node with the largest share of run time',
          onclick: () => selectNode(lines[hot][1], 'ir-hot') }));
      }
    });
  }

  // ---------------------------------------------------------------- tables
  const pendingShows = [];
  function renderTables(main, d) {
    const { el, head } = section('tables-section', 'Tables');
    main.appendChild(el);
    guarded('tables', el, () => {
      const selbar = h('div', { class: 'gp-selbar', id: 'selection-bar' });
      app.selbar = selbar;
      const g = tableGroup('', d.tables || {}, ['node', 'kind', 'module', 'shape'],
        { node: 'Nodes', kind: 'Kinds', module: 'Modules', shape: 'Shapes' },
        { node: { onRowClick: (r, id) => { if (isNum(id)) selectNode(id, 'table'); } } });
      app.tables = g;
      app.nodeTable = g.views.get('node') || null;
      if (!g.views.size) { el.appendChild(h('div', { class: 'gp-empty', text: 'No tables in this report.' })); return; }
      head.appendChild(g.tabs);
      el.appendChild(g.body);
      if (app.nodeTable) el.appendChild(selbar);
      updateSelbar();
      g.select(g.views.has('node') ? 'node' : [...g.views.keys()][0]);
    });
  }

  // ================================================================ main
  function topbar(d) {
    const s = (d && d.summary) || {};
    const nav = h('nav', { class: 'gp-nav' });
    const links = [['summary', 'Summary'], ['diff', 'Comparison'], ['icicle-section', 'Modules'], ['timeline-section', 'Timeline'], ['tables-section', 'Tables'], ['roofline-section', 'Roofline'], ['ir-section', 'IR']];
    for (const [id, label] of links) {
      if (id === 'diff' && !(d && d.diff)) continue;
      if (id === 'roofline-section' && !(d && d.roofline)) continue;
      const a = h('a', { href: `#${id}`, text: label });
      a.addEventListener('click', (e) => { const t = document.getElementById(id); if (t) { e.preventDefault(); t.scrollIntoView({ block: 'start' }); } });
      nav.appendChild(a);
    }
    return h('header', { class: 'gp-topbar' }, h('span', { class: 'gp-brand' }, h('span', { class: 'gp-logo' }), 'graphprof'),
      h('span', { class: 'gp-topbar-model', text: asStr(s.model) }), nav);
  }

  function start() {
    const t0 = performance.now();
    const app0 = document.getElementById('app') || document.body.appendChild(h('div', { id: 'app' }));
    clear(app0);
    let d;
    try {
      d = readData();
    } catch (e) {
      console.error('graphprof: cannot read report data:', e);
      app0.appendChild(h('div', { class: 'gp-error', text: `Cannot read the report data: ${e && e.message ? e.message : e}` }));
      window.__graphprofReady = true;
      return;
    }
    app.data = d;
    const timings = { parse: Math.round(performance.now() - t0) };
    let tm = performance.now();
    const lap = (name) => { const now = performance.now(); timings[name] = Math.round(now - tm); tm = now; };
    const tables = d.tables && typeof d.tables === 'object' ? d.tables : {};
    app.nodeIndex = buildNodeIndex(normTable(tables.node));
    app0.appendChild(topbar(d));
    const main = h('main');
    app0.appendChild(main);
    lap('index');
    renderSummary(main, d); lap('summary');
    renderDiff(main, d); lap('diff');
    renderRoofline(main, d); lap('roofline');
    renderIcicle(main, d); lap('icicle');
    renderTimeline(main, d); lap('timeline');
    renderTables(main, d); lap('tables');
    renderIr(main, d); lap('ir');
    for (const f of pendingShows) guarded('diff tables', main, f);
    updateSelbar();
    lap('finish');
    window.__graphprofTimings = timings;

    let resizeTimer = 0;
    let lastW = window.innerWidth;
    window.addEventListener('resize', () => {
      if (window.innerWidth === lastW) return;
      lastW = window.innerWidth;
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        if (app.icicle && app.icicle.container.clientWidth !== app.icicle.width) app.icicle.render();
        if (app.timeline && app.timeline.evCanvas.parentNode.clientWidth !== app.timeline.W) app.timeline.draw();
        for (const g of [app.tables, app.diffTables]) {
          if (!g) continue;
          for (const v of g.views.values()) if (v.built) v.applyWidths();
        }
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
})();
