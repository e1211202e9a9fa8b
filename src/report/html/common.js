// SPDX-License-Identifier: Apache-2.0
// common.js: helpers shared by the report page (report.js) and the compare page (compare.js):
// element building, number formats, colours, and a sortable, filterable table. Everything the
// pages show comes from the JSON island #nvfp4-data; nothing is fetched.
'use strict';

const NV = (window.nvfp4 = { charts: {}, tables: {} });

NV.data = JSON.parse(document.getElementById('nvfp4-data').textContent);

// h('div', {class: 'x', onclick: f}, child, 'text', ...): an element with attributes and children.
NV.h = function (tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
};

NV.isNum = (v) => typeof v === 'number' && isFinite(v);
NV.fixed = (v, d) => (NV.isNum(v) ? v.toFixed(d) : '–');
// Microseconds with about four significant digits.
NV.us = (v) => (!NV.isNum(v) ? '–' : v >= 1000 ? v.toFixed(0) : v >= 100 ? v.toFixed(1) : v >= 10 ? v.toFixed(2) : v.toFixed(3));
NV.pct = (v, d = 1) => (NV.isNum(v) ? (100 * v).toFixed(d) + ' %' : '–');

// Stable colours: the known variants get their own, others take the rest of the palette in order.
const VARIANT_COLORS = {
  naive: '#8a94a6', vectorized: '#2563eb', 'tensor-core': '#ea580c', persistent: '#16a34a', cublaslt: '#9333ea',
};
const SPARE_COLORS = ['#0891b2', '#db2777', '#ca8a04', '#4f46e5', '#65a30d', '#dc2626'];
const spare = {};
NV.variantColor = function (v) {
  if (VARIANT_COLORS[v]) return VARIANT_COLORS[v];
  if (!(v in spare)) spare[v] = SPARE_COLORS[Object.keys(spare).length % SPARE_COLORS.length];
  return spare[v];
};
NV.alpha = (hex, a) => {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${a})`;
};
NV.unique = (xs) => [...new Set(xs)];

// Chart.js defaults for every chart: no animation (screenshots and tests see the final state).
Chart.defaults.animation = false;
Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
Chart.defaults.font.size = 12;
Chart.defaults.color = '#334155';
Chart.defaults.plugins.legend.labels.boxWidth = 12;
Chart.defaults.maintainAspectRatio = false;

// A titled card holding one chart canvas; returns {card, canvas}.
NV.chartCard = function (title, subtitle, height, wide) {
  const canvas = NV.h('canvas');
  const card = NV.h('figure', { class: 'card chart' + (wide ? ' wide' : '') },
    NV.h('figcaption', {}, NV.h('h3', {}, title), subtitle ? NV.h('p', { class: 'muted' }, subtitle) : null),
    NV.h('div', { class: 'canvas-box', style: `height:${height}px` }, canvas));
  return { card, canvas };
};

NV.section = function (id, title, intro) {
  return NV.h('section', { id }, NV.h('h2', {}, title), intro ? NV.h('p', { class: 'intro' }, intro) : null);
};

// Copies text to the clipboard; falls back to a selected textarea where the API is unavailable.
NV.copy = function (text, button) {
  const done = () => {
    const old = button.textContent;
    button.textContent = 'copied';
    setTimeout(() => (button.textContent = old), 1200);
  };
  const fallback = () => {
    const t = NV.h('textarea', { class: 'offscreen' });
    t.value = text;
    document.body.append(t);
    t.select();
    try { document.execCommand('copy'); } catch (e) { /* nothing else to try */ }
    t.remove();
    done();
  };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
  else fallback();
};

// A sortable, filterable table.
//   columns: [{key, title, num, text(row) -> string|Node, value(row) -> sort key, cls(row), tip}]
//   opts: {id, filters: [{key, label, plural, value(row)}], search: true, rowClass(row), initialSort: {key, dir}}
// Clicking a header sorts by it (again: reverses). The <th> carries aria-sort; each <tr> keeps its
// row index in data-index. Returns {element, table, tbody, apply()}.
NV.table = function (rows, columns, opts) {
  const state = { sort: opts.initialSort || null, filters: {}, search: '' };
  const tbody = NV.h('tbody');
  const heads = columns.map((c) =>
    NV.h('th', { class: c.num ? 'num' : null, title: c.tip || null, dataset: { key: c.key }, scope: 'col',
      onclick: () => {
        const dir = state.sort && state.sort.key === c.key && state.sort.dir === 'asc' ? 'desc' : 'asc';
        state.sort = { key: c.key, dir };
        apply();
      } }, c.title));
  const table = NV.h('table', { class: 'results', id: opts.id }, NV.h('thead', {}, NV.h('tr', {}, heads)), tbody);
  const count = NV.h('span', { class: 'muted count' });
  const controls = NV.h('div', { class: 'controls' });
  for (const f of opts.filters || []) {
    const values = NV.unique(rows.map(f.value));
    const sel = NV.h('select', { dataset: { filter: f.key }, onchange: (e) => { state.filters[f.key] = e.target.value; apply(); } },
      NV.h('option', { value: '' }, `all ${f.plural || f.label + 's'}`), values.map((v) => NV.h('option', { value: v }, v)));
    controls.append(NV.h('label', {}, f.label + ' ', sel));
  }
  if (opts.search) {
    controls.append(NV.h('input', { type: 'search', placeholder: 'filter text…', 'aria-label': 'filter rows by text',
      oninput: (e) => { state.search = e.target.value.toLowerCase(); apply(); } }));
  }
  controls.append(count);

  const built = rows.map((r, i) => {
    const tr = NV.h('tr', { class: opts.rowClass ? opts.rowClass(r) : null, dataset: { index: i } },
      columns.map((c) => {
        const v = c.text(r);
        return NV.h('td', { class: [c.num ? 'num' : '', c.cls ? c.cls(r) : ''].join(' ').trim() || null }, v);
      }));
    tr._search = columns.map((c) => { const v = c.text(r); return v instanceof Node ? v.textContent : String(v); }).join(' ').toLowerCase();
    return { r, tr, i };
  });

  function apply() {
    let list = built.filter(({ r, tr }) =>
      (opts.filters || []).every((f) => !state.filters[f.key] || String(f.value(r)) === state.filters[f.key]) &&
      (!state.search || tr._search.includes(state.search)));
    if (state.sort) {
      const col = columns.find((c) => c.key === state.sort.key);
      const sign = state.sort.dir === 'asc' ? 1 : -1;
      list = list.slice().sort((a, b) => {
        const x = col.value(a.r), y = col.value(b.r);
        const xm = x === null || x === undefined || (typeof x === 'number' && !isFinite(x));
        const ym = y === null || y === undefined || (typeof y === 'number' && !isFinite(y));
        if (xm || ym) return xm === ym ? a.i - b.i : xm ? 1 : -1;  // missing values last, both ways
        const d = typeof x === 'number' ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
        return d === 0 ? a.i - b.i : sign * d;
      });
    }
    tbody.replaceChildren(...list.map((x) => x.tr));
    for (const th of heads)
      th.setAttribute('aria-sort', state.sort && th.dataset.key === state.sort.key ? (state.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none');
    count.textContent = `${list.length} of ${rows.length} rows`;
  }
  apply();
  const element = NV.h('div', { class: 'table-block' }, controls, NV.h('div', { class: 'table-scroll' }, table));
  const api = { element, table, tbody, apply };
  if (opts.id) NV.tables[opts.id] = api;
  return api;
};

// Group shapes ("80x4096x7168,176x4096x7168,...") are long: where the groups share N and K they
// read as {groups, ms, n, k}; null otherwise.
NV.groupShape = function (shape) {
  const groups = shape.split(',').map((g) => g.split('x'));
  if (groups.length < 2 || groups.some((g) => g.length !== 3 || g[1] !== groups[0][1] || g[2] !== groups[0][2])) return null;
  return { groups: groups.length, ms: groups.map((g) => g[0]), n: groups[0][1], k: groups[0][2] };
};
// Shape text for tables: "M=[80,176,...] N=4096 K=7168".
NV.shapeText = function (shape) {
  const g = NV.groupShape(shape);
  return g ? `M=[${g.ms.join(',')}] N=${g.n} K=${g.k}` : shape;
};
// Shape text as chart axis lines.
NV.shapeLines = function (shape) {
  const g = NV.groupShape(shape);
  if (!g) return shape.includes(',') ? shape.split(',') : shape;  // groups of different N, K: one a line
  const lines = [`${g.groups}× N=${g.n} K=${g.k}`];
  for (let i = 0; i < g.ms.length; i += 4) lines.push((i ? '' : 'M=') + g.ms.slice(i, i + 4).join(','));
  return lines;
};
// Log-axis tick labels at powers of ten only (1, 10, 100, ...; 0.1, 0.01).
NV.decadeTick = function (v) {
  const l = Math.log10(v);
  if (Math.abs(l - Math.round(l)) > 1e-6) return '';
  return v >= 1 ? Math.round(v).toLocaleString('en-US') : String(Number(v.toPrecision(1)));
};
