#!/usr/bin/env node
// Browser test of a graphprof HTML report page (headless system Chromium via puppeteer-core).
//
//   node html_report_test.mjs --page=PAGE.html --expect=EXPECT.json [--screenshot=OUT.png]
//        [--zoom=layer4] [--max_open_ms=3000] [--chromium=/usr/bin/chromium] [--width=1440 --height=900]
//
// EXPECT.json: {"top_node_id": N|null, "has_diff": bool, "zoom": PATH|null (optional default for --zoom)}
// Exits 0 when every check passes, 1 with one "FAIL: ..." line per failed check otherwise,
// 2 on usage errors. The last stdout line is a JSON summary (open times, counts).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const args = {};
for (const a of process.argv.slice(2)) {
  const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
  if (!m) { console.error(`bad argument: ${a}`); process.exit(2); }
  args[m[1]] = m[2] ?? 'true';
}
if (!args.page || !args.expect) {
  console.error('usage: node html_report_test.mjs --page=PAGE.html --expect=EXPECT.json [--screenshot=OUT.png] [--zoom=PATH] [--max_open_ms=3000]');
  process.exit(2);
}
const pagePath = path.resolve(args.page);
const expect = JSON.parse(fs.readFileSync(args.expect, 'utf8'));
const maxOpenMs = Number(args.max_open_ms || 3000);
const zoom = args.zoom !== undefined ? args.zoom : (expect.zoom ?? null);
const chromium = args.chromium || '/usr/bin/chromium';
const pageUrl = pathToFileURL(pagePath).href;

const failures = [];
const notes = [];
const fail = (msg) => { failures.push(msg); console.log(`FAIL: ${msg}`); };
const ok = (msg) => console.log(`ok:   ${msg}`);
const check = (cond, msg, detail) => { if (cond) ok(msg); else fail(detail ? `${msg} (${detail})` : msg); return !!cond; };

// ------------------------------------------------------------------ data, read independently of the page
function readEmbeddedData(file) {
  const html = fs.readFileSync(file, 'utf8');
  const open = '<script id="graphprof-data" type="application/json">';
  const a = html.indexOf(open);
  if (a < 0) throw new Error('page has no <script id="graphprof-data" type="application/json">');
  const b = html.indexOf('</script>', a + open.length);
  if (b < 0) throw new Error('graphprof-data script is not closed');
  return { data: JSON.parse(html.slice(a + open.length, b)), bytes: Buffer.byteLength(html) };
}
const NUMERIC = new Set(['int', 'num', 'us', 'pct', 'bytes', 'delta_us', 'speedup']);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
// The documented sort order: stable, nulls last in both directions, ties keep data order,
// text compared case-insensitively by code unit.
function sortedRows(table, key, desc) {
  const ci = table.columns.findIndex((c) => c.key === key);
  const numeric = NUMERIC.has(table.columns[ci].type);
  const idx = table.rows.map((_, i) => i);
  const val = (i) => {
    const v = table.rows[i][ci];
    if (numeric) return isNum(v) ? v : null;
    return v == null ? null : String(v).toLowerCase();
  };
  idx.sort((a, b) => {
    const x = val(a); const y = val(b);
    if (x === null || y === null) return x === null && y === null ? a - b : x === null ? 1 : -1;
    const c = numeric ? x - y : (x < y ? -1 : x > y ? 1 : 0);
    return (desc ? -c : c) || a - b;
  });
  return idx;
}

// ------------------------------------------------------------------ main
let browser;
let userDataDir;
const summary = { page: pagePath, bytes: 0 };
const t00 = Date.now();
try {
  const { data, bytes } = readEmbeddedData(pagePath);
  summary.bytes = bytes;
  const nodeT0 = data.tables && data.tables.node;
  // the page ignores rows that are not arrays; so does the test
  const nodeT = nodeT0 && Array.isArray(nodeT0.rows) ? { ...nodeT0, rows: nodeT0.rows.filter(Array.isArray) } : nodeT0;
  const colIdx = (t, k) => t.columns.findIndex((c) => c.key === k);

  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphprof-chromium-'));
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${userDataDir}`],
    userDataDir,
    defaultViewport: { width: Number(args.width || 1440), height: Number(args.height || 900), deviceScaleFactor: 1 },
    protocolTimeout: 180000,
  });
  const page = await browser.newPage();

  const consoleErrors = []; const pageErrors = []; const failedRequests = []; const foreignRequests = [];
  const requests = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = req.url();
    requests.push(url);
    if (url.split('#')[0] === pageUrl) { req.continue(); return; }
    foreignRequests.push(url.length > 200 ? `${url.slice(0, 200)}...` : url);
    req.abort('blockedbyclient');
  });
  page.on('requestfailed', (req) => {
    const url = req.url();
    if (url.split('#')[0] !== pageUrl) return; // already reported as a foreign request
    failedRequests.push(`${url} ${req.failure() ? req.failure().errorText : ''}`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
    else if (msg.type() === 'warn' || msg.type() === 'warning') notes.push(`console warning: ${msg.text()}`);
  });
  page.on('pageerror', (err) => pageErrors.push(String(err && err.message ? err.message : err)));

  // ---------------------------------------------------------------- open
  const tNav = Date.now();
  await page.goto(pageUrl, { waitUntil: 'load', timeout: 120000 });
  await page.waitForFunction('window.__graphprofReady === true', { timeout: Math.max(30000, 5 * maxOpenMs), polling: 50 })
    .catch((e) => { throw new Error(`page never became ready (window.__graphprofReady not set): ${e.message}; page errors: ${pageErrors.join(' | ')}; console errors: ${consoleErrors.join(' | ')}`); });
  const wallMs = Date.now() - tNav;
  const timing = await page.evaluate(() => ({
    ready: window.__graphprofReadyMs, render: window.__graphprofRenderMs,
    domInteractive: performance.getEntriesByType('navigation')[0]?.domInteractive,
  }));
  summary.open_ms = Math.round(timing.ready);
  summary.render_ms = Math.round(timing.render);
  summary.wall_ms = wallMs;
  check(isNum(timing.ready) && timing.ready < maxOpenMs, `page ready ${Math.round(timing.ready)} ms after navigation start (< ${maxOpenMs} ms; script render ${Math.round(timing.render)} ms, wall incl. CDP ${wallMs} ms)`);
  check((await page.$('#app main')) !== null, 'page rendered its main element');

  // ---------------------------------------------------------------- screenshot (as opened, before any interaction)
  if (args.screenshot) {
    await page.screenshot({ path: args.screenshot, fullPage: true });
    ok(`screenshot saved to ${args.screenshot}`);
  }

  // model string rendered verbatim (escaping)
  const modelText = await page.$eval('#model-name', (e) => e.textContent).catch(() => null);
  const wantModel = data.summary && data.summary.model ? String(data.summary.model) : '(unnamed model)';
  check(modelText === wantModel, 'summary shows the model string verbatim', `got ${JSON.stringify(modelText)}, want ${JSON.stringify(wantModel)}`);

  // ---------------------------------------------------------------- node table: default sort
  // The tables are virtualised: a scroll re-renders their rows on the next
  // animation frame, which can detach an element between finding it and
  // clicking it. Let pending frames run, and find the element again if it
  // went away.
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const clickWhenSettled = async (selector) => {
    for (let attempt = 1; ; attempt++) {
      await page.waitForSelector(selector, { timeout: 5000 });
      await settle();
      try {
        await page.click(selector);
        return;
      } catch (e) {
        if (attempt >= 3 || !/detached|not clickable|no node found/i.test(String(e))) throw e;
      }
    }
  };
  const firstRow = () => page.evaluate(() => {
    const tr = document.querySelector('#table-node tbody tr[data-id]');
    return tr ? { id: Number(tr.getAttribute('data-id')), row: Number(tr.getAttribute('data-row')) } : null;
  });
  const renderedRows = () => page.evaluate(() => [...document.querySelectorAll('#table-node tbody tr.row')].map((tr) => Number(tr.getAttribute('data-row'))));
  const hasNodeTable = (await page.$('#table-node')) !== null;
  check(hasNodeTable || !nodeT, 'node table #table-node exists');
  const nRows = nodeT ? nodeT.rows.length : 0;
  if (hasNodeTable && nRows > 0) {
    const fr = await firstRow();
    check(fr && fr.id === expect.top_node_id, `first node row (default sort) has data-id ${expect.top_node_id}`, `got ${fr && fr.id}`);
    const heads = await page.$$eval('#table-node thead th', (ths) => ths.map((t) => t.getAttribute('data-key')));
    check(heads.every((k) => k) && heads.includes('id'), 'node table header cells carry data-key (incl. "id")', heads.join(','));
    const rendered = await renderedRows();
    check(rendered.length > 0 && rendered.length <= 150, `node table is virtualised (${rendered.length} of ${nRows} rows in the DOM)`);

    // ---------------------------------------------------------------- sorting by header click
    const sortCase = async (key, desc, label) => {
      await page.click(`#table-node thead th[data-key="${key}"]`);
      await page.waitForFunction((k, d) => document.getElementById('table-node').getAttribute('data-sort') === `${k}:${d ? 'desc' : 'asc'}`, { timeout: 10000 }, key, desc);
      const want = sortedRows(nodeT, key, desc).slice(0, 5);
      const got = (await renderedRows()).slice(0, 5);
      const arrow = await page.$eval(`#table-node thead th[data-key="${key}"] .arrow`, (e) => e.textContent);
      check(JSON.stringify(got) === JSON.stringify(want) && arrow === (desc ? '\u25bc' : '\u25b2'),
        `${label}: first rows follow ${key} ${desc ? 'descending' : 'ascending'} (arrow ${arrow})`, `rows ${got} want ${want}`);
    };
    const hasCol = (k) => colIdx(nodeT, k) >= 0;
    if (hasCol('calls')) {
      await sortCase('calls', true, 'click "calls"');
      await sortCase('calls', false, 'click "calls" again');
    }
    if (hasCol('name')) {
      await sortCase('name', false, 'click "name"');
      await sortCase('name', true, 'click "name" again');
    }
    // back to the default order
    const ds = nodeT.default_sort;
    if (ds && colIdx(nodeT, ds.key) >= 0) {
      const type = nodeT.columns[colIdx(nodeT, ds.key)].type;
      await page.click(`#table-node thead th[data-key="${ds.key}"]`);
      if (!!ds.desc !== NUMERIC.has(type)) await page.click(`#table-node thead th[data-key="${ds.key}"]`);
      const fr2 = await firstRow();
      check(fr2 && fr2.id === expect.top_node_id, 'clicking the default sort column restores the default order', `first id ${fr2 && fr2.id}`);
    } else {
      await page.click('#sort-reset-node');
      const fr2 = await firstRow();
      check(fr2 && fr2.id === expect.top_node_id, 'the "Original order" button restores the given row order', `first id ${fr2 && fr2.id}`);
    }

    // ---------------------------------------------------------------- search filter
    const ki = colIdx(nodeT, 'kind');
    const topRow = nodeT.rows.find((r) => r[colIdx(nodeT, 'id')] === expect.top_node_id) || nodeT.rows[0];
    const q = ki >= 0 ? String(topRow[ki]) : String(topRow[colIdx(nodeT, 'name')]);
    await page.click('#search-node', { clickCount: 3 });
    await page.type('#search-node', q);
    await page.waitForFunction((s) => document.getElementById('table-node').getAttribute('data-filter') === s, { timeout: 15000 }, q);
    const searchCols = ['name', 'kind', 'module', 'shape'].map((k) => colIdx(nodeT, k)).filter((i) => i >= 0);
    const ql = q.toLowerCase();
    const wantCount = nodeT.rows.filter((r) => searchCols.some((i) => r[i] != null && String(r[i]).toLowerCase().includes(ql))).length;
    const res = await page.evaluate(() => {
      const keys = [...document.querySelectorAll('#table-node thead th')].map((t) => t.getAttribute('data-key'));
      const rows = [...document.querySelectorAll('#table-node tbody tr.row')].map((tr) => {
        const cells = [...tr.children].map((td) => td.textContent);
        const o = {};
        keys.forEach((k, i) => { o[k] = cells[i]; });
        return o;
      });
      return { rows, count: Number(document.getElementById('table-node').getAttribute('data-rows')) };
    });
    const bad = res.rows.filter((r) => !['name', 'kind', 'module', 'shape'].some((k) => r[k] != null && r[k].toLowerCase().includes(ql)));
    check(res.rows.length > 0 && bad.length === 0, `search "${q}": all ${res.rows.length} rendered rows contain it in name/kind/module`, `${bad.length} rows do not`);
    check(res.count === wantCount, `search "${q}": ${res.count} matching rows (expected ${wantCount})`);
    await page.click('#search-node', { clickCount: 3 });
    await page.keyboard.press('Backspace');
    await page.waitForFunction(() => document.getElementById('table-node').getAttribute('data-filter') === '', { timeout: 15000 });
    const afterClear = await page.evaluate(() => ({ rows: Number(document.getElementById('table-node').getAttribute('data-rows')), first: document.querySelector('#table-node tbody tr[data-id]')?.getAttribute('data-id') }));
    check(afterClear.rows === nRows && Number(afterClear.first) === expect.top_node_id, 'clearing the search restores all rows', JSON.stringify(afterClear));

    // ---------------------------------------------------------------- row -> IR line
    const irNodes = new Set((data.ir || []).filter((l) => Array.isArray(l) && isNum(l[1]) && l[1] >= 0).map((l) => l[1]));
    const idCol0 = colIdx(nodeT, 'id');
    const defaultOrder = (nodeT.default_sort && colIdx(nodeT, nodeT.default_sort.key) >= 0)
      ? sortedRows(nodeT, nodeT.default_sort.key, !!nodeT.default_sort.desc) : nodeT.rows.map((_, i) => i);
    const firstWithIr = defaultOrder.findIndex((r) => irNodes.has(nodeT.rows[r][idCol0]));
    if (irNodes.size && firstWithIr >= 0) {
      // the first row (in default order) whose node has an IR line; scroll the table to it if needed
      const fr3 = { id: nodeT.rows[defaultOrder[firstWithIr]][idCol0] };
      await page.evaluate((k) => {
        const sc = document.getElementById('table-node').parentElement;
        const tr = document.querySelector('#table-node tbody tr.row');
        sc.scrollTop = Math.max(0, k * (tr ? tr.getBoundingClientRect().height : 24) - 60);
        sc.dispatchEvent(new Event('scroll'));
      }, firstWithIr);
      await clickWhenSettled(`#table-node tbody tr[data-id="${fr3.id}"] td:nth-child(2)`);
      const irRes = await page.evaluate((id) => {
        const el = document.querySelector(`#ir .ir-line[data-line-node="${id}"]`);
        const sc = document.getElementById('ir');
        if (!el) return { found: false };
        const r = el.getBoundingClientRect(); const s = sc.getBoundingClientRect();
        return {
          found: true, hl: el.classList.contains('hl'), visible: r.top >= s.top - 1 && r.bottom <= s.bottom + 1,
          others: document.querySelectorAll('#ir .ir-line.hl').length,
          rowSelected: !!document.querySelector(`#table-node tr.row.selected[data-id="${id}"]`),
        };
      }, fr3.id);
      check(irRes.found && irRes.hl && irRes.visible && irRes.others === 1 && irRes.rowSelected,
        `clicking node row ${fr3.id} selects it and highlights + scrolls to its IR line`, JSON.stringify(irRes));
      // The selection bar leaves out what the node lacks (no module, no time) rather than printing it.
      const bar = await page.$eval('#selection-bar', (e) => e.textContent).catch(() => '');
      check(bar.includes(`#${fr3.id}`) && !/null|undefined|NaN/.test(bar), 'the selection bar names the selected node and nothing absent', bar);

      // ---------------------------------------------------------------- IR line -> row
      // pick a node far from the top of the default order so the table has to scroll
      const order = defaultOrder;
      const idCol = colIdx(nodeT, 'id');
      let target = null;
      for (let k = order.length - 1; k >= 0; k--) {
        const id = nodeT.rows[order[Math.floor(k * 0.7)]][idCol];
        if (irNodes.has(id) && id !== fr3.id) { target = id; break; }
      }
      const tableIds = new Set(nodeT.rows.filter(Array.isArray).map((r) => r[idCol]));
      if (target === null) target = [...irNodes].find((x) => x !== fr3.id && tableIds.has(x)) ?? fr3.id;
      if (await page.$('#tab-kind')) await page.click('#tab-kind'); // the click must switch back to the node tab
      const lineIdx = data.ir.findIndex((l) => Array.isArray(l) && l[1] === target);
      await page.evaluate((i) => { const sc = document.getElementById('ir'); sc.scrollTop = Math.max(0, i * 18 - 100); sc.dispatchEvent(new Event('scroll')); }, lineIdx);
      await clickWhenSettled(`#ir .ir-line[data-line-node="${target}"]`);
      const rowRes = await page.evaluate((id) => {
        const tr = document.querySelector(`#table-node tbody tr.row[data-id="${id}"]`);
        const sc = document.querySelector('#table-node').parentElement;
        const tab = document.querySelector('#tab-node');
        const line = document.querySelector(`#ir .ir-line[data-line-node="${id}"]`);
        if (!tr) return { found: false, tab: tab && tab.getAttribute('aria-selected') };
        const r = tr.getBoundingClientRect(); const s = sc.getBoundingClientRect();
        return {
          found: true, selected: tr.classList.contains('selected'), tab: tab && tab.getAttribute('aria-selected'),
          visible: r.top >= s.top - 1 && r.bottom <= s.bottom + 1, viewVisible: !document.getElementById('view-node').hidden,
          lineHl: !!(line && line.classList.contains('hl')),
          selectedCount: document.querySelectorAll('#table-node tbody tr.row.selected').length,
        };
      }, target);
      check(rowRes.found && rowRes.selected && rowRes.tab === 'true' && rowRes.visible && rowRes.viewVisible && rowRes.lineHl && rowRes.selectedCount === 1,
        `clicking IR line of node ${target} switches to the node tab and selects + reveals its row`, JSON.stringify(rowRes));
      // keyboard: ArrowDown moves the selection to the next row of the current order
      const k0 = defaultOrder.findIndex((r) => nodeT.rows[r][idCol0] === target);
      if (k0 >= 0 && k0 + 1 < defaultOrder.length && nodeT.rows[defaultOrder[k0 + 1]][idCol0] != null) {
        await page.focus('#view-node .tv-scroll');
        await page.keyboard.press('ArrowDown');
        const want = nodeT.rows[defaultOrder[k0 + 1]][idCol0];
        const got = await page.evaluate(() => Number(document.querySelector('#table-node tbody tr.row.selected')?.getAttribute('data-id')));
        check(got === want, `ArrowDown in the node table selects the next row (${want})`, `selected ${got}`);
      }
    } else {
      notes.push('no IR lines with nodes: IR linkage checks skipped');
    }
  } else if (hasNodeTable) {
    const empty = await page.$eval('#table-node tbody', (b) => b.textContent);
    check(/No rows/.test(empty) && expect.top_node_id == null, 'empty node table says "No rows"');
  }

  // ---------------------------------------------------------------- icicle zoom
  if (zoom) {
    const r = await page.$(`#icicle rect[data-path="${zoom}"]`);
    if (check(r !== null, `icicle has a rect with data-path="${zoom}"`)) {
      await page.click(`#icicle rect[data-path="${zoom}"]`);
      const paths = await page.$$eval('#icicle [data-path]', (els) => els.map((e) => e.getAttribute('data-path')));
      const outside = paths.filter((p) => !(p === zoom || p.startsWith(`${zoom}.`)));
      check(paths.length > 0 && outside.length === 0, `after zooming into "${zoom}" all ${paths.length} icicle rects are inside it`, `outside: ${outside.slice(0, 5).join(', ')}`);
      const w = await page.$eval(`#icicle rect[data-path="${zoom}"]`, (e) => [Number(e.getAttribute('width')), e.ownerSVGElement.getBoundingClientRect().width]);
      check(w[0] >= w[1] - 2, `zoomed rect "${zoom}" is full width (${w[0].toFixed(0)} of ${w[1].toFixed(0)} px)`);
      const crumbs = await page.$eval('#icicle-crumbs', (e) => e.textContent);
      check(crumbs.includes('(root)'), 'breadcrumb shows the zoom path', crumbs);
      await page.click('#icicle-reset');
      check((await page.$('#icicle rect[data-path=""]')) !== null, 'reset zoom shows the root again');
    }
  }

  // ---------------------------------------------------------------- diff section
  const hasDiff = (await page.$('#diff')) !== null;
  check(hasDiff === !!expect.has_diff, `diff section ${expect.has_diff ? 'present' : 'absent'}`, `present: ${hasDiff}`);
  if (hasDiff && data.diff && data.diff.tables) {
    for (const k of Object.keys(data.diff.tables)) {
      check((await page.$(`#table-diff-${k}`)) !== null || k !== 'module', `diff table #table-diff-${k} exists`);
    }
    const col = await page.evaluate(() => ({
      better: document.querySelectorAll('#diff td.better').length, worse: document.querySelectorAll('#diff td.worse').length,
      speedup: document.getElementById('diff-speedup') && document.getElementById('diff-speedup').className,
    }));
    check(col.better + col.worse > 0, `diff tables colour speedups (${col.better} green, ${col.worse} red cells)`);
    // Verdicts: each visible diff row draws its change's interval as a whisker,
    // and the header states the run total's verdict.
    const verdicts = await page.evaluate(() => ({
      rows: document.querySelectorAll('#diff tr.row').length,
      whiskers: document.querySelectorAll('#diff tr.row svg.gp-whisker').length,
      total: document.getElementById('diff-verdict') ? document.getElementById('diff-verdict').textContent : null,
      speed: document.getElementById('diff-speed') ? document.getElementById('diff-speed').textContent : null,
    }));
    check(verdicts.rows > 0 && verdicts.whiskers === verdicts.rows,
      `every visible diff row has a whisker (${verdicts.whiskers} of ${verdicts.rows})`);
    check(verdicts.total !== null && /(faster|slower|same|inconclusive)/.test(verdicts.total),
      'the run total has a verdict', String(verdicts.total));
    // The diff compares a saved report of another process: the machine's
    // speed is a row of its own (docs/statistics.md, "Between processes").
    check(verdicts.speed !== null && /^machine speed .*(faster|slower|same|inconclusive)/.test(verdicts.speed),
      'the machine speed between the processes is shown', String(verdicts.speed));
  }

  // ---------------------------------------------------------------- roofline
  if (expect.roofline_points !== undefined && expect.roofline_points !== null) {
    const rf = await page.evaluate(() => {
      const svg = document.getElementById('roofline-chart');
      return svg ? { points: svg.querySelectorAll('circle.gp-roof-point').length,
        roofs: svg.querySelectorAll('.gp-roof-memory, .gp-roof-compute').length } : null;
    });
    check(rf !== null, 'the roofline chart is drawn');
    if (rf) {
      check(rf.points === expect.roofline_points && rf.points > 0,
        `a roofline point per executed counted node (${rf.points} drawn, ${expect.roofline_points} expected)`);
      check(rf.roofs === 2, 'the memory and compute roofs are drawn');
    }
  }

  // ---------------------------------------------------------------- timeline
  const tl0 = data.timeline;
  const tl = tl0 && typeof tl0 === 'object'
    ? { ...tl0, events: (Array.isArray(tl0.events) ? tl0.events : []).filter((e) => Array.isArray(e) && isNum(e[0]) && isNum(e[1]) && isNum(e[2])) } : null;
  if (tl && tl.events.length) {
    const px = await page.evaluate(() => {
      const c = document.getElementById('timeline-events');
      if (!c) return null;
      const ctx = c.getContext('2d');
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      const colours = new Set();
      for (let i = 0; i < d.length; i += 4 * 97) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return { w: c.width, h: c.height, colours: colours.size, mem: !!document.getElementById('timeline-memory') };
    });
    check(px && px.w > 0 && px.colours > 3, 'timeline canvas is drawn', JSON.stringify(px));
    const wantMem = !!((Array.isArray(tl.memory) && tl.memory.length) || (tl.peak && isNum(tl.peak.bytes) && isNum(tl.peak.t_ns)));
    check(!!px && px.mem === wantMem, `live-bytes canvas ${wantMem ? 'present' : 'absent'}`);
  } else {
    check((await page.$('#timeline-events')) === null, 'no timeline canvas without events');
  }

  // ---------------------------------------------------------------- interaction smoke (errors are caught below)
  {
    const hover = async (sel) => {
      if (!(await page.$(sel))) return false;
      try { await page.hover(sel); } catch { await new Promise((r) => setTimeout(r, 300)); await page.hover(sel); } // re-rendered under us: retry once
      return true;
    };
    const tooltipShown = () => page.evaluate(() => { const t = document.querySelector('.gp-tooltip'); return !!t && t.style.display === 'block' && t.textContent.length > 0; });
    if (await hover('#icicle rect[data-path=""]')) check(await tooltipShown(), 'hovering an icicle rect shows a tooltip');
    for (const tab of await page.$$eval('.gp-tab', (ts) => ts.map((t) => t.id))) {
      await page.click(`#${tab}`);
      const shown = await page.evaluate((id) => { const v = document.getElementById(document.getElementById(id).getAttribute('aria-controls')); return !!v && !v.hidden && !!v.querySelector('table'); }, tab);
      check(shown, `tab ${tab} shows its table`);
    }
    if (await page.$('#tab-node')) await page.click('#tab-node');
    const ev = await page.$('#timeline-events');
    if (ev && tl && Array.isArray(tl.events) && tl.events.length) {
      await page.click('#timeline-zoom-in');
      await page.click('#timeline-zoom-out');
      await page.click('#timeline-reset');
      // click the middle of the longest top-level event: it must select that node
      const evs = tl.events.filter((e) => (e[3] || 0) === 0 && (e[4] || 0) === 0);  // lane 0's top row
      const longest = evs.reduce((a, e) => (e[2] > a[2] ? e : a), evs[0]);
      await ev.scrollIntoView();
      const box = await ev.boundingBox();
      const dur = Math.max(tl.duration_ns || 0, ...evs.map((e) => e[1] + e[2]));
      const x = box.x + ((longest[1] + longest[2] / 2) / dur) * box.width;
      await page.mouse.move(x, box.y + 22 + 2 + 9);
      check(await tooltipShown(), 'hovering a timeline event shows a tooltip');
      await page.mouse.click(x, box.y + 22 + 2 + 9);
      const sel = await page.evaluate(() => { const tr = document.querySelector('#table-node tbody tr.row.selected'); return tr ? Number(tr.getAttribute('data-id')) : null; });
      const pxWidth = (longest[2] / dur) * box.width;
      if (pxWidth >= 6) {
        check(sel === longest[0], `clicking timeline event of node ${longest[0]} selects its table row`, `selected ${sel}`);
      } else {  // sub-pixel events: any event within the 3 px hit tolerance is right
        const t = ((x - box.x) / box.width) * dur; const tol = (3 / box.width) * dur;
        const near = evs.some((e) => e[0] === sel && e[1] - tol <= t && e[1] + e[2] + tol >= t);
        check(near, `clicking the timeline at a sub-pixel event selects a node there (${sel})`);
      }
      // lanes (a merged report): the canvas has every lane's rows, and hovering an event of the last lane names it
      const lanes = Array.isArray(tl.lanes) ? tl.lanes : [];
      if (lanes.length) {
        await page.click('#timeline-reset');
        const rows = Math.max(0, ...tl.events.map((e) => e[3] || 0)) + 1;
        const laneBox = await ev.boundingBox();
        check(laneBox.height >= 22 + lanes.length * rows * 20, `the timeline has rows for ${lanes.length} lanes`, `height ${laneBox.height}`);
        const last = lanes.length - 1;
        const mine = tl.events.filter((e) => e[4] === last && (e[3] || 0) === 0);
        const big = mine.reduce((a, e) => (e[2] > a[2] ? e : a), mine[0]);
        const laneDur = Math.max(tl.duration_ns || 0, ...tl.events.map((e) => e[1] + e[2]));
        await page.mouse.move(laneBox.x + ((big[1] + big[2] / 2) / laneDur) * laneBox.width, laneBox.y + 22 + 2 + last * rows * 20 + 9);
        const text = await page.evaluate(() => { const t = document.querySelector('.gp-tooltip'); return t && t.style.display === 'block' ? t.textContent : ''; });
        check(text.includes(lanes[last].label), `hovering an event of lane ${last} names its lane (${lanes[last].label})`, text);
      }
      // ctrl+wheel zoom
      await page.keyboard.down('Control');
      await page.mouse.wheel({ deltaY: -200 });
      await page.keyboard.up('Control');
    }
    await page.mouse.move(1, 1);
  }

  // ---------------------------------------------------------------- errors / network (collected over the whole run)
  await new Promise((r) => setTimeout(r, 100));
  check(pageErrors.length === 0, 'no page errors', pageErrors.slice(0, 5).join(' | '));
  check(consoleErrors.length === 0, 'no console errors', consoleErrors.slice(0, 5).join(' | '));
  check(foreignRequests.length === 0, `no network requests besides the page itself (${requests.length} request(s) seen)`, foreignRequests.slice(0, 5).join(' | '));
  check(failedRequests.length === 0, 'no failed requests', failedRequests.slice(0, 5).join(' | '));
} catch (e) {
  fail(`test crashed: ${e && e.stack ? e.stack : e}`);
} finally {
  if (browser) await browser.close().catch(() => {});
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
}
summary.failures = failures.length;
summary.notes = notes;
summary.total_ms = Date.now() - t00;
console.log(failures.length ? `FAILED: ${failures.length} check(s) failed` : 'PASSED');
console.log(JSON.stringify(summary));
process.exit(failures.length ? 1 : 0);
