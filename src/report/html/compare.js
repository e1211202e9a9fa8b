// SPDX-License-Identifier: Apache-2.0
// compare.js: the regression view of `nvfp4bench compare BASE NEW --html F` (data: kind
// "nvfp4bench.compare", built by report/html_writer.cpp): the verdict counts, a chart of new/base
// per case sorted by change with regressions first, and the table of medians with their noise.
'use strict';

(function () {
  const { h, isNum, fixed, us } = NV;
  const D = NV.data;
  const app = document.getElementById('app');

  // Regressions first (SLOWER, FAILED), then NOISY, then by change, largest slow-down first.
  const RANK = { SLOWER: 0, FAILED: 1, NOISY: 2, FASTER: 4, SAME: 3, NEW: 5, MISSING: 6 };
  const rows = D.rows.slice().sort((a, b) => {
    const ra = RANK[a.verdict] ?? 9, rb = RANK[b.verdict] ?? 9;
    const ca = isNum(a.ratio) ? a.ratio : -Infinity, cb = isNum(b.ratio) ? b.ratio : -Infinity;
    const regA = ra <= 1, regB = rb <= 1;
    if (regA !== regB) return regA ? -1 : 1;
    if (ca !== cb) return cb - ca;
    return ra - rb;
  });
  const verdicts = ['SLOWER', 'FAILED', 'NOISY', 'FASTER', 'SAME', 'NEW', 'MISSING'];
  const count = (v) => D.rows.filter((r) => r.verdict === v).length;
  const outcomeCls = D.outcome === 'REGRESSION' ? 'fail' : D.outcome === 'NOISY' ? 'warn' : 'pass';

  app.append(h('header', { class: 'top' },
    h('div', {}, h('h1', {}, 'nvfp4bench compare'),
      h('p', { class: 'sub' }, `${D.rows.length} cases · threshold ${D.threshold_pct} % · noise k=${D.noise_k}, tolerance cap ${D.tolerance_cap}× threshold`)),
    h('div', { class: 'pills' }, h('span', { class: `pill big ${outcomeCls}` }, D.outcome),
      verdicts.map((v) => h('span', { class: `pill ${count(v) ? { SLOWER: 'fail', FAILED: 'fail', NOISY: 'warn', FASTER: 'pass' }[v] || 'skip' : 'zero'}` }, `${count(v)} ${v}`)))));

  const side = (title, x) => h('div', { class: 'card' }, h('h3', {}, title), h('dl', {},
    [['report', x.path], ['git sha', x.git_sha], ['device', x.device], ['timestamp', x.timestamp], ['command', x.command_line]]
      .filter((p) => p[1]).map(([k, v]) => [h('dt', {}, k), h('dd', {}, k === 'command' || k === 'report' ? h('code', {}, v) : v)])));
  app.append(h('section', { class: 'meta two' }, side('Base', D.base), side('New', D.new),
    h('div', { class: 'card wide' }, h('h3', {}, 'Summary'), h('code', { class: 'cmd' }, D.summary))));

  // ---- ratio chart ----
  const withRatio = rows.filter((r) => isNum(r.ratio));
  if (withRatio.length) {
    const color = { SLOWER: '#dc2626', FAILED: '#dc2626', NOISY: '#d97706', FASTER: '#16a34a', SAME: '#94a3b8' };
    const sec = NV.section('ratios', 'New / base, by change',
      'Each bar runs from 1 (no change) to the case\'s new/base median ratio; regressions first, then the largest slow-downs. The shaded band is ± the threshold.');
    const { card, canvas } = NV.chartCard('new / base median', `${withRatio.length} cases timed in both reports`, Math.max(220, 22 * withRatio.length + 80), true);
    sec.append(card);
    app.append(sec);
    const labels = withRatio.map((r) => { const t = NV.shapeText(r.shape); return `${r.problem} ${t.length > 40 ? t.slice(0, 38) + '…' : t} ${r.variant}`; });
    const lo = Math.min(1 - D.threshold_pct / 100, ...withRatio.map((r) => r.ratio));
    const hi = Math.max(1 + D.threshold_pct / 100, ...withRatio.map((r) => r.ratio));
    const pad = (hi - lo) * 0.08 + 0.01;
    const band = {
      id: 'thresholdBand',
      beforeDatasetsDraw(chart) {
        const x = chart.scales.x, a = chart.chartArea, ctx = chart.ctx;
        const x0 = x.getPixelForValue(1 - D.threshold_pct / 100), x1 = x.getPixelForValue(1 + D.threshold_pct / 100);
        ctx.save();
        ctx.fillStyle = 'rgba(100,116,139,0.12)';
        ctx.fillRect(x0, a.top, x1 - x0, a.bottom - a.top);
        ctx.strokeStyle = '#475569';
        ctx.beginPath(); ctx.moveTo(x.getPixelForValue(1), a.top); ctx.lineTo(x.getPixelForValue(1), a.bottom); ctx.stroke();
        ctx.restore();
      },
    };
    NV.charts.ratios = new Chart(canvas, {
      type: 'bar',
      data: { labels, datasets: [{ label: 'new / base', nvfp4Role: 'ratio', nvfp4Rows: withRatio,
        data: withRatio.map((r) => [1, r.ratio]), backgroundColor: withRatio.map((r) => color[r.verdict] || '#64748b'), borderSkipped: false, barPercentage: 0.8, minBarLength: 2 }] },
      options: {
        indexAxis: 'y',
        scales: { x: { min: lo - pad, max: hi + pad, title: { display: true, text: 'new / base median (1 = unchanged; right = slower)' } },
          y: { ticks: { autoSkip: false, font: { size: 11 } } } },
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: (c) => {
          const r = withRatio[c.dataIndex];
          return `${r.verdict}: ${fixed(r.ratio, 3)} (${(100 * (r.ratio - 1)).toFixed(1)} %, tolerance ${fixed(100 * r.tolerance, 1)} %)`;
        } } } },
      },
      plugins: [band],
    });
  }

  // ---- table ----
  const withNoise = (v, n) => (isNum(v) ? `${us(v)} ± ${fixed(100 * n, 1)} %` : '–');
  const cols = [
    { key: 'problem', title: 'problem', text: (r) => r.problem, value: (r) => r.problem },
    { key: 'shape', title: 'shape', text: (r) => NV.shapeText(r.shape), value: (r) => r.shape, cls: () => 'shape' },
    { key: 'variant', title: 'variant', text: (r) => r.variant, value: (r) => r.variant },
    { key: 'dist', title: 'dist', text: (r) => r.dist || '–', value: (r) => r.dist },
    { key: 'base', title: 'base µs ± noise', num: true, text: (r) => withNoise(r.base_median_us, r.base_noise), value: (r) => r.base_median_us },
    { key: 'new', title: 'new µs ± noise', num: true, text: (r) => withNoise(r.new_median_us, r.new_noise), value: (r) => r.new_median_us },
    { key: 'ratio', title: 'new/base', num: true, text: (r) => fixed(r.ratio, 3), value: (r) => r.ratio },
    { key: 'change', title: 'change', num: true, text: (r) => (isNum(r.ratio) ? `${r.ratio >= 1 ? '+' : ''}${(100 * (r.ratio - 1)).toFixed(1)} %` : '–'), value: (r) => r.ratio },
    { key: 'tol', title: 'tolerance', num: true, text: (r) => (isNum(r.ratio) ? fixed(100 * r.tolerance, 1) + ' %' : '–'), value: (r) => (isNum(r.ratio) ? r.tolerance : null) },
    { key: 'verdict', title: 'verdict', text: (r) => r.verdict, value: (r) => RANK[r.verdict] ?? 9, cls: (r) => 'v-' + r.verdict.toLowerCase() },
    { key: 'note', title: 'note', text: (r) => r.note, value: (r) => r.note, cls: () => 'reason' },
  ];
  const table = NV.table(rows, cols, {
    id: 'compare-table', search: true,
    filters: [{ key: 'problem', label: 'problem', value: (r) => r.problem }, { key: 'variant', label: 'variant', value: (r) => r.variant },
      { key: 'verdict', label: 'verdict', value: (r) => r.verdict }],
    rowClass: (r) => (r.verdict === 'SLOWER' || r.verdict === 'FAILED' ? 'bad' : r.verdict === 'NOISY' ? 'throttled' : null),
  });
  const sec = NV.section('cases', 'Cases', 'Rows in the chart\'s order: regressions first. Click a column to sort.');
  sec.append(table.element);
  app.append(sec);
  app.append(h('footer', {}, `nvfp4bench compare · drawn offline with Chart.js ${Chart.version}`));
})();
