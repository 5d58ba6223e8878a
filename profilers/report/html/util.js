  // graphprof HTML report (html/scripts.txt: how the files make one script), util.js: DOM helpers, number and time formats, colours, the tooltip, reading the embedded data.
  //
  // graphprof HTML report - renders the JSON embedded in <script id="graphprof-data">.
  // Vanilla ES2020, no dependencies, no network. All data strings go through textContent /
  // setAttribute (never innerHTML), so model names may contain any characters.
  const SVGNS = 'http://www.w3.org/2000/svg';
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const clamp = (v, lo, hi) => (v < lo ? lo : v > hi ? hi : v);
  const asArray = (v) => (Array.isArray(v) ? v : []);
  const asStr = (v) => (v == null ? '' : String(v));

  // An HTML (h) or SVG (svg) element with these attributes and children (see add). Attributes: text is
  // the text, on* functions listen, the rest are set as strings (true as ''), null or false not at all.
  const h = (tag, attrs, ...children) => populate(document.createElement(tag), attrs, children);
  const svg = (tag, attrs, ...children) => populate(document.createElementNS(SVGNS, tag), attrs, children);
  function populate(el, attrs, children) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === 'text') el.textContent = String(v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children) add(el, c);
    return el;
  }
  function add(el, c) {
    if (c == null || c === false) return;
    if (Array.isArray(c)) { for (const x of c) add(el, x); return; }
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  // Within root, puts class cls on just the first element matching sel (on none when sel is null);
  // items: a selector of the elements that may have it.
  function markOnly(root, items, cls, sel) {
    for (const el of root.querySelectorAll(`${items}.${cls}`)) el.classList.remove(cls);
    const el = sel && root.querySelector(sel);
    if (el) el.classList.add(cls);
  }
  // Scrolls the page to the section with this id, its top at the window's top; false if there is none.
  function scrollToSection(id) {
    const el = document.getElementById(id);
    if (el) el.scrollIntoView({ block: 'start' });
    return !!el;
  }
  // Sorts a by cmp unless it is in order already (rows and events often come sorted); returns a.
  function sortIfUnsorted(a, cmp) {
    for (let i = 1; i < a.length; i++) if (cmp(a[i - 1], a[i]) > 0) return a.sort(cmp);
    return a;
  }

  // fn, run once in the next animation frame however often the returned function is called before.
  function perFrame(fn) {
    let raf = 0;
    return () => {
      if (!raf) raf = requestAnimationFrame(() => { raf = 0; fn(); });
    };
  }
  // A virtual list (the tables, the IR) of n rows of rowH px in a scroll box: the rows [start, end)
  // that the box shows, with `over` more on either side.
  function visibleRows(box, n, rowH, over) {
    const st = box.scrollTop;
    const vh = box.clientHeight || 500;
    return [Math.max(0, Math.floor(st / rowH) - over), Math.min(n, Math.ceil((st + vh) / rowH) + over)];
  }
  // Scrolls a virtual list's box so that the row at `top` px shows, centred if it did not already;
  // head, foot: the px of the box that its header and footer rows cover.
  function revealRow(box, top, rowH, head = 0, foot = 0) {
    const vh = box.clientHeight || 400;
    const st = box.scrollTop;
    if (top < st || top + rowH > st + vh - head - foot) box.scrollTop = Math.max(0, top - (vh - head) / 2);
  }

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
    const k = a < 1024 ** 2 ? 1 : a < 1024 ** 3 ? 2 : 3;
    return `${(b / 1024 ** k).toFixed(2)} ${['', 'KiB', 'MiB', 'GiB'][k]}`;
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
    return String(Number.isInteger(v) ? v : Number(v.toPrecision(6)));
  }
  function fmtPct(p) { return isNum(p) ? `${p.toFixed(2)}%` : '-'; }

  // Cell formatting by column type: returns [text, extra class].
  function formatCell(type, v) {
    if (v == null || (typeof v === 'number' && !Number.isFinite(v))) {
      return type === 'speedup' ? ['-', 'dim'] : ['', ''];
    }
    if (type === 'change') return [fmtChange(v), ''];
    if (type === 'verdict') return [asStr(v), v === 'faster' ? 'better' : v === 'slower' ? 'worse' : v === 'same' ? 'dim' : 'inconclusive'];
    // The other types format numbers only; anything else is shown as it is.
    if (typeof v !== 'number') return [asStr(v), ''];
    switch (type) {
      case 'int': return [String(Math.round(v)), ''];
      case 'num': return [fmtNum(v), ''];
      case 'us': return [fmtUs(v), ''];
      case 'pct': return [v.toFixed(2), ''];
      case 'bytes': return [fmtBytes(v), ''];
      case 'delta_us': return [(v > 0 ? '+' : '') + fmtUs(v), v < 0 ? 'better' : v > 0 ? 'worse' : ''];
      case 'speedup': return v === 0 ? ['-', 'dim'] : [`${v.toFixed(2)}\u00d7`, v > 1 ? 'better' : v < 1 ? 'worse' : ''];
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
    const x = (f) => 32 + 30 * clamp(isNum(f) ? f / 0.5 : (f === null ? 1 : 0), -1, 1);
    const lo = isNum(v[1]) ? v[1] : -1; const hi = isNum(v[2]) ? v[2] : 1;
    return svg('svg', { class: `gp-whisker ${verdict || ''}`, width: 64, height: 10 },
      svg('line', { x1: 32, x2: 32, y1: 0, y2: 10, class: 'gp-whisker-zero' }),
      svg('line', { x1: x(lo), x2: x(hi), y1: 5, y2: 5, class: 'gp-whisker-range' }),
      svg('circle', { cx: x(v[0]), cy: 5, r: 2.5, class: 'gp-whisker-dot' }));
  }
  const NUMERIC_TYPES = new Set(['int', 'num', 'us', 'pct', 'bytes', 'delta_us', 'speedup', 'change']);

  // Categorical palette (colour-blind friendly-ish, readable with dark text).
  const PALETTE = ['#6d9eeb', '#f6b26b', '#93c47d', '#e06666', '#b4a7d6', '#76a5af', '#ffd966',
    '#c27ba0', '#a2c4c9', '#d5a6bd', '#b6d7a8', '#f9cb9c'];
  const OTHER_COLOR = '#cbd5e1';

  function mix(hex, t) { // "#rrggbb"; t>0 mixes towards white
    const n = parseInt(hex.slice(1), 16);
    const f = (c) => Math.round(c + (255 - c) * t);
    return `rgb(${f((n >> 16) & 255)},${f((n >> 8) & 255)},${f(n & 255)})`;
  }

  // The page's font family (report.css's --font), for canvas text and text measurement.
  const UI_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "Liberation Sans", "DejaVu Sans", Arial, sans-serif';
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
      if (!this.el) this.el = document.body.appendChild(h('div', { class: 'gp-tooltip', role: 'tooltip' }));
      const el = this.el;
      el.replaceChildren(h('div', { class: 'tt-title', text: title }),
        ...rows.map(([k, v]) => h('div', { class: 'tt-row' }, h('span', { text: k }), h('span', { text: v }))));
      el.style.display = 'block';
      // Below right of (x, y), or on the other side where it would leave the window.
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
    const ci = col('id');
    if (ci < 0) return idx;
    // A column's cell of a row, null where the table has no such column.
    const cell = (k) => { const c = col(k); return (row) => (c >= 0 ? row[c] : null); };
    const name = cell('name'); const kind = cell('kind'); const module = cell('module');
    const mean = cell('mean_us'); const percent = cell('percent'); const calls = cell('count');
    for (const row of t.rows) {
      const id = row[ci];
      if (!isNum(id) || idx.has(id)) continue;
      idx.set(id, { name: asStr(name(row)), kind: asStr(kind(row)), module: asStr(module(row)),
        mean_us: mean(row), percent: percent(row), calls: calls(row) });
    }
    return idx;
  }

