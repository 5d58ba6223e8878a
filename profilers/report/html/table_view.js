  // graphprof HTML report (html/scripts.txt: how the files make one script), table_view.js: TableView: a virtual (windowed) sortable, searchable table, and tabbed groups of them.
  const NAME_KEYS = ['name', 'module', 'kind', 'shape', 'path'];
  const SEARCH_KEYS = ['name', 'kind', 'module', 'shape'];
  const TABLE_FONT = `12.5px ${UI_FONT}`;

  class TableView {
    // id: "node" -> <table id="table-node">, <input id="search-node">.
    constructor(id, table, opts) {
      this.id = id;
      this.t = table;
      this.opts = opts || {};
      const cols = table.columns;
      this.keyIdx = new Map(cols.map((c, i) => [c.key, i]));
      this.indentIdx = (table.indent_key != null ? this.keyIdx.get(table.indent_key) : undefined) ?? -1;
      this.vis = cols.map((c, i) => i).filter((i) => i !== this.indentIdx);
      // The text columns among keys, in the order of keys.
      const textCols = (keys) => keys.map((k) => this.keyIdx.get(k)).filter((i) => i !== undefined && cols[i].type === 'text');
      this.nameIdx = textCols(NAME_KEYS)[0] ?? this.vis.find((i) => cols[i].type === 'text') ?? -1;
      this.idIdx = this.keyIdx.get('id') ?? -1;
      const search = textCols(SEARCH_KEYS);
      this.searchIdx = search.length ? search : cols.map((c, i) => i).filter((i) => cols[i].type === 'text');
      const ds = table.default_sort;
      // The initial order, which the reset button restores: the default sort, else the rows' own (key null).
      this.initialSort = ds && this.keyIdx.has(ds.key) ? { key: ds.key, desc: !!ds.desc } : { key: null, desc: false };
      this.sortKey = this.initialSort.key;
      this.sortDesc = this.initialSort.desc;
      this.query = '';
      this.order = null;          // row indices after sort + filter
      this.sortCache = new Map();
      this.hay = null;            // lowercase search strings, built on the first search
      this.selectedId = null;
      this.rowH = 24;
      this.built = false;
      this.rendered = [-1, -1];
      this.root = h('div', { class: 'tv', id: `view-${id}`, hidden: true, role: 'tabpanel' });  // a tab's panel (tableGroup)
    }

    ensureBuilt() {
      if (this.built) return;
      this.built = true;
      const t = this.t;
      const cols = t.columns;
      this.search = h('input', {
        class: 'tv-search', id: `search-${this.id}`, type: 'search', spellcheck: 'false', autocomplete: 'off',
        placeholder: this.searchIdx.length ? `Filter by ${this.searchIdx.map((i) => cols[i].key).join(', ')}\u2026` : 'Filter\u2026',
        'aria-label': `Filter ${this.id} table`,
      });
      this.count = h('span', { class: 'tv-count' });
      this.resetBtn = h('button', { class: 'gp-btn', type: 'button', id: `sort-reset-${this.id}`, text: this.initialSort.key != null ? 'Default sort' : 'Original order', title: 'Restore the initial row order',
        onclick: () => this.setSort(this.initialSort.key, this.initialSort.desc) });
      const toolbar = h('div', { class: 'tv-toolbar' }, h('span', { class: 'tv-search-wrap' }, this.search), this.count,
        h('span', { class: 'gp-spacer', style: 'flex:1 1 auto' }), this.resetBtn);
      const ths = this.vis.map((i) => {
        const c = cols[i];
        const num = NUMERIC_TYPES.has(c.type);
        const arrow = h('span', { class: 'arrow' });
        const label = h('span', { text: c.label });
        return h('th', { 'data-key': c.key, class: num ? 'num' : null, title: `${c.label} - click to sort`, scope: 'col' }, num ? [arrow, label] : [label, arrow]);
      });
      this.colgroup = h('colgroup', null, this.vis.map(() => h('col')));
      this.thead = h('thead', null, h('tr', null, ths));
      this.tbody = h('tbody');
      this.table = h('table', { class: 'grid', id: `table-${this.id}` }, this.colgroup, this.thead, this.tbody);
      if (t.sums) {
        const cells = this.vis.map((i) => {
          const [text, cls] = formatCell(cols[i].type, t.sums[i]);
          return h('td', { class: `${NUMERIC_TYPES.has(cols[i].type) ? 'num' : ''} ${cls}`.trim() || null, text });
        });
        this.tfoot = this.table.appendChild(h('tfoot', null, h('tr', { class: 'sums' }, cells)));
      }
      this.scroll = h('div', { class: 'tv-scroll' }, this.table);
      this.root.append(toolbar, this.scroll);

      this.thead.addEventListener('click', (e) => {
        const th = e.target.closest('th');
        if (!th) return;
        const key = th.getAttribute('data-key');
        // The same column again reverses the order; a new one starts with numbers descending.
        this.setSort(key, this.sortKey === key ? !this.sortDesc : NUMERIC_TYPES.has(cols[this.keyIdx.get(key)].type));
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
      this.scroll.addEventListener('scroll', perFrame(() => this.renderRows()), { passive: true });
      if (this.opts.onRowClick && this.idIdx >= 0) {
        // keyboard: up/down move the selection through the (sorted, filtered) rows
        this.scroll.tabIndex = 0;
        this.scroll.addEventListener('keydown', (e) => {
          if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
          const n = this.order.length;
          if (!n) return;
          const pos = this.positionOf(this.selectedId);  // -1 for none
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
      this.layout();
      this.renderRows(true);
    }

    computeWidths() {
      const cols = this.t.columns;
      const rows = this.t.rows;
      const sample = this.sortedIndices().slice(0, 400);
      // also sample evenly across the table
      const step = Math.max(1, Math.floor(rows.length / 200));
      for (let r = 0; r < rows.length && sample.length < 700; r += step) sample.push(r);
      const maxIndent = this.indentIdx < 0 ? 0 : Math.max(0, ...sample.map((r) => rows[r][this.indentIdx]).filter(isNum));
      this.widths = this.vis.map((i) => {
        const c = cols[i];
        const num = NUMERIC_TYPES.has(c.type);
        const font = c.key === 'source' || c.key === 'shapes' ? `11.5px ${UI_FONT}` : TABLE_FONT;
        let w = textWidth(c.label, `600 ${TABLE_FONT}`) + 36; // padding + sort arrow
        // The longest cell text (the first of that length) of the sample and the sums.
        const longest = sample.map((r) => rows[r][i]).concat(this.t.sums ? [this.t.sums[i]] : [])
          .map((v) => formatCell(c.type, v)[0]).reduce((a, b) => (b.length > a.length ? b : a), '');
        w = Math.max(w, textWidth(longest, font) + 20);
        if (i === this.nameIdx) w += maxIndent * 14;
        const max = num ? 150 : i === this.nameIdx ? 460 : c.key === 'source' ? 300 : c.key === 'shapes' ? 280 : 260;
        return Math.ceil(clamp(w, num ? 56 : 64, max));
      });
      this.applyWidths();
    }

    // The name column takes the free width of the panel, up to 420 px; any rest stays empty.
    applyWidths() {
      const colsEls = this.colgroup.children;
      const avail = (this.scroll && this.scroll.clientWidth) || this.root.clientWidth || 1200;
      const slack = Math.max(0, avail - this.widths.reduce((a, b) => a + b, 0));
      const widths = this.widths.map((w, k) => (this.vis[k] === this.nameIdx ? Math.min(Math.max(w, 420), w + slack) : w));
      widths.forEach((w, k) => { colsEls[k].style.width = `${w}px`; });
      this.table.style.width = `${widths.reduce((a, b) => a + b, 0)}px`;
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
      const idx = rows.map((row, i) => i);
      if (key != null) {
        const ci = this.keyIdx.get(key);
        const num = NUMERIC_TYPES.has(this.t.columns[ci].type);
        const desc = this.sortDesc;
        // Numbers (of a change: its median) or lowercase strings; null (missing) sorts last either way.
        const vals = rows.map((row) => {
          const v = row[ci];
          if (num) return isNum(v) ? v : Array.isArray(v) && isNum(v[0]) ? v[0] : null;
          return v == null ? null : String(v).toLowerCase();
        });
        sortIfUnsorted(idx, (a, b) => {
          const x = vals[a]; const y = vals[b];
          if (x === null || y === null) return x === null && y === null ? a - b : x === null ? 1 : -1;
          const c = x < y ? -1 : x > y ? 1 : 0;
          return (desc ? -c : c) || a - b;
        });
      }
      if (this.sortCache.size > 6) this.sortCache.clear();
      this.sortCache.set(cacheKey, idx);
      return idx;
    }

    // After a change of sort or filter: the rows to show, the count, the reset button and the header.
    recompute() {
      const base = this.sortedIndices();
      const q = this.query.trim().toLowerCase();
      if (!q) this.order = base;
      else {
        if (!this.hay) this.hay = this.t.rows.map((row) => {
          let s = '';
          for (const i of this.searchIdx) if (row[i] != null) s += `${String(row[i]).toLowerCase()}\u0001`;
          return s;
        });
        this.order = base.filter((r) => this.hay[r].includes(q));
      }
      const n = this.order.length; const total = this.t.rows.length;
      this.count.textContent = q ? `${n.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows` : `${total.toLocaleString('en-US')} rows`;
      this.table.setAttribute('data-filter', this.query.trim());
      this.table.setAttribute('data-rows', String(n));
      // (The rows' own order has no direction.)
      this.resetBtn.disabled = this.sortKey === this.initialSort.key && (this.sortKey == null || this.sortDesc === this.initialSort.desc);
      this.posById = null;
      for (const th of this.thead.querySelectorAll('th')) {
        const on = th.getAttribute('data-key') === this.sortKey;
        th.setAttribute('aria-sort', on ? (this.sortDesc ? 'descending' : 'ascending') : 'none');
        th.querySelector('.arrow').textContent = on ? (this.sortDesc ? '\u25bc' : '\u25b2') : '';
      }
      this.table.setAttribute('data-sort', this.sortKey ? `${this.sortKey}:${this.sortDesc ? 'desc' : 'asc'}` : '');
    }

    setSort(key, desc) {
      this.sortKey = key; this.sortDesc = !!desc;
      this.recompute();
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

    renderRows(force) {
      if (!this.built) return;
      const order = this.order;
      const n = order.length;
      const rowH = this.rowH;
      const [start, end] = visibleRows(this.scroll, n, rowH, 10);
      if (!force && start === this.rendered[0] && end === this.rendered[1]) return;
      this.rendered = [start, end];
      const cols = this.t.columns;
      const rows = this.t.rows;
      const frag = document.createDocumentFragment();
      const nvis = this.vis.length;
      const spacer = (px) => h('tr', { class: 'spacer', 'aria-hidden': 'true' }, h('td', { colspan: nvis, style: `height:${px}px` }));
      if (n === 0) {
        frag.appendChild(h('tr', { class: 'empty' }, h('td', { colspan: nvis, text: this.query ? `No rows match \u201c${this.query}\u201d` : 'No rows' })));
      } else {
        frag.appendChild(spacer(start * rowH));
        const indent = this.indentIdx >= 0 && this.sortKey == null;  // the tree's indentation, in its own order only
        const clickable = !!this.opts.onRowClick;
        for (let k = start; k < end; k++) {
          const r = order[k];
          const row = rows[r];
          const id = this.idIdx >= 0 ? row[this.idIdx] : null;
          const tr = h('tr', { class: `row${clickable ? ' clickable' : ''}${id != null && id === this.selectedId ? ' selected' : ''}`, 'data-row': r, 'data-id': id == null ? null : String(id) });
          for (let j = 0; j < nvis; j++) {
            const i = this.vis[j];
            const c = cols[i];
            const v = row[i];
            const [text, cls] = formatCell(c.type, v);
            let cn = NUMERIC_TYPES.has(c.type) ? 'num' : 't-text';
            if (c.key === 'source' || c.key === 'shapes') cn = 't-mono';
            else if (c.key === 'kind') cn = 't-kind';
            if (c.type === 'pct') cn += ' t-pct';
            if (cls) cn += ` ${cls}`;
            const td = h('td', { class: cn, text });
            if (c.type === 'pct' && isNum(v)) td.style.setProperty('--p', `${clamp(v, 0, 100).toFixed(2)}%`);
            if (c.type === 'change' && Array.isArray(v)) {
              const vi = this.keyIdx.get(c.key.replace(/change$/, 'verdict'));  // a column's own: backward_verdict
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
      this.tbody.replaceChildren(frag);
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
      markOnly(this.tbody, 'tr.row', 'selected', id == null ? null : `tr.row[data-id="${CSS.escape(String(id))}"]`);
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
      revealRow(this.scroll, pos * this.rowH, this.rowH, this.thead.offsetHeight || 30, this.tfoot ? this.tfoot.offsetHeight : 0);
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
      return this.posById.get(id) ?? -1;
    }

    onShow() { this.ensureBuilt(); this.applyWidths(); this.layout(); this.renderRows(true); }
  }

  // Tabbed group of TableViews of the tables (an object) at the keys in order.
  function tableGroup(prefix, tables, order, labels, opts) {
    const views = new Map();
    const tabs = h('div', { class: 'gp-tabs', role: 'tablist' });
    const body = h('div', { class: 'tv-group' });
    let active = null;
    // Shows the view of key, by default the first (in order) that there is.
    const select = (key = views.keys().next().value) => {
      if (!views.has(key)) return;
      active = key;
      for (const [k, v] of views) {
        const on = k === key;
        v.root.hidden = !on;
        v.tab.setAttribute('aria-selected', on ? 'true' : 'false');
        v.tab.tabIndex = on ? 0 : -1;
      }
      views.get(key).onShow();
    };
    for (const key of order) {
      const t = normTable(tables[key]);
      if (!t) continue;
      const id = prefix ? `${prefix}-${key}` : key;
      const view = new TableView(id, t, opts && opts[key]);
      views.set(key, view);
      view.tab = tabs.appendChild(h('button', { class: 'gp-tab', role: 'tab', type: 'button', id: `tab-${id}`, 'data-view': key, 'aria-controls': `view-${id}`, onclick: () => select(key) },
        labels[key] || key, h('span', { class: 'gp-count', text: t.rows.length.toLocaleString('en-US') })));
      body.appendChild(view.root);
    }
    return { tabs, body, views, select, get active() { return active; } };
  }

