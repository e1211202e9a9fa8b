// SPDX-License-Identifier: Apache-2.0
// report.js: the page of one JSON report (schema nvfp4bench.report/1, in #nvfp4-data): the run's
// metadata, the results table, per problem the time of each variant per shape against SOL, the
// streaming floor and the B200 target, the roofline, and the sample distributions (--samples).
// Charts are kept in window.nvfp4.charts (the browser test reads them).
'use strict';

(function () {
  const { h, isNum, fixed, us } = NV;
  const D = NV.data;
  const results = D.results || [];
  const timed = (r) => r.timing && isNum(r.timing.median_us) && r.timing.samples > 0;
  const throttled = (r) => r.timing && r.timing.clocks && r.timing.clocks.throttled_samples > 0;
  const problems = NV.unique(results.map((r) => r.problem));
  const app = document.getElementById('app');

  // ---- header ----
  const dev = D.device;
  const counts = D.summary || {};
  const pill = (n, word, cls) => h('span', { class: `pill ${cls}${n ? '' : ' zero'}` }, `${n} ${word}`);
  app.append(h('header', { class: 'top' },
    h('div', {}, h('h1', {}, 'nvfp4bench report'),
      h('p', { class: 'sub' }, dev ? `${dev.name} · sm_${dev.compute_capability.replace('.', '')} · ${dev.sms} SMs` : 'no GPU',
        ' · ', D.timestamp || '', ' · ', `${D.tool.name} ${D.tool.version} (${D.tool.git_sha})`)),
    h('div', { class: 'pills' }, pill(counts.pass, 'PASS', 'pass'), pill(counts.fail, 'FAIL', 'fail'),
      pill(counts.skip, 'SKIP', 'skip'), pill(counts.error, 'ERROR', 'error'),
      pill(results.filter(throttled).length, 'throttled', 'warn'))));

  // ---- metadata ----
  const dl = (pairs) => h('dl', {}, pairs.filter((p) => p[1] !== null && p[1] !== undefined && p[1] !== '')
    .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  const S = D.settings || {};
  const T = S.timing || {};
  const clockRange = (() => {
    const c = results.filter(timed).map((r) => r.timing.clocks).filter((c) => c && c.before);
    if (!c.length) return 'unknown (no NVML)';
    const lo = Math.min(...c.map((x) => x.min_sm_mhz)), hi = Math.max(...c.map((x) => x.reference_sm_mhz));
    const temps = c.flatMap((x) => [x.before.temp_c, x.after && x.after.temp_c]).filter(isNum);
    return `SM ${lo === hi ? hi : lo + '–' + hi} MHz during timing, ${Math.min(...temps)}–${Math.max(...temps)} °C`;
  })();
  const rates = (r) => (r ? `${fixed(r.hbm_gbps, 0)} GB/s HBM, ${fixed(r.tensor_tflops, 0)} TFLOP/s ${r.kind} (${r.gpu})` : null);
  const M = D.sol_measured;
  app.append(h('section', { id: 'meta', class: 'meta' },
    h('div', { class: 'card' }, h('h3', {}, 'GPU'), dev ? dl([
      ['device', dev.name], ['compute capability', dev.compute_capability], ['SMs', dev.sms],
      ['L2', `${(dev.l2_bytes / 1048576).toFixed(0)} MiB`], ['memory', `${(dev.memory_bytes / 2 ** 30).toFixed(0)} GiB`],
      ['max clocks', `SM ${fixed(dev.sm_clock_mhz, 0)} MHz, memory ${fixed(dev.mem_clock_mhz, 0)} MHz`],
      ['observed', clockRange]]) : h('p', {}, 'no GPU')),
    h('div', { class: 'card' }, h('h3', {}, 'Software'), dl([
      ['nvfp4bench', `${D.tool.version} (${D.tool.git_sha})`], ['driver', dev && dev.driver_version],
      ['CUDA runtime', dev && dev.cuda_runtime_version], ['cuBLASLt', dev && dev.cublaslt_version],
      ['timestamp', D.timestamp]])),
    h('div', { class: 'card' }, h('h3', {}, 'Settings'), dl([
      ['config', S.config], ['seed / dist', `${S.seed ?? 'per case'} / ${S.dist ?? 'per case'}`],
      ['tolerance', S.tolerance && `rtol ${S.tolerance.rtol}, atol ${S.tolerance.atol}`],
      ['timer', T.enabled ? `${T.timer}${T.timer_reason ? ' (' + T.timer_reason + ')' : ''}` : 'verify only'],
      ['sampling', T.enabled ? `batch ${T.batch}, L2 ${T.l2}, warm-up ${T.warmup}, ${T.min_samples}–${T.max_samples} samples, ` +
        `${T.min_time_s}–${T.max_time_s} s, target RSE ${T.target_rse}` : null],
      ['floor / samples', T.enabled ? `${T.floor ? 'floor timed' : 'no floor'}, ${T.keep_samples ? 'samples kept' : 'no samples'}` : null],
      ['variants', S.variants && S.variants.length ? S.variants.join(', ') : 'all']])),
    h('div', { class: 'card' }, h('h3', {}, 'Speed of light'), dl([
      ['used', D.sol ? `${D.sol_source}: ${rates(D.sol)}` : 'none'], ['spec', rates(D.sol_spec)],
      ['measured', M ? `${fixed(M.hbm_gbps, 0)} GB/s HBM read, ${fixed(M.fp16_tensor_tflops, 0)} TFLOP/s FP16` +
        (isNum(M.fp4_tensor_tflops) ? `, ${fixed(M.fp4_tensor_tflops, 0)} TFLOP/s FP4` : '') : 'not measured (--sol measured)'],
      ['wgmma path', M && isNum(M.decode_wgmma_tflops) ? `${fixed(M.decode_wgmma_tflops, 0)} TFLOP/s FP4 decode + wgmma` +
        (isNum(M.wgmma_rs_tflops) ? `, ${fixed(M.wgmma_rs_tflops, 0)} TFLOP/s wgmma alone` : '') + ' (the ceiling behind % ceiling)' : null],
      ['mma.sync path', M && isNum(M.decode_mma_tflops) ? `${fixed(M.decode_mma_tflops, 0)} TFLOP/s FP4 decode + mma.sync` +
        (isNum(M.mma_sync_tflops) ? `, ${fixed(M.mma_sync_tflops, 0)} TFLOP/s mma.sync alone` : '') + ' (the tensor-core variants\' ceiling)' : null],
      ['rule', D.sol_note]])),
    (D.plugins && D.plugins.length) || (D.submissions && D.submissions.length)
      ? h('div', { class: 'card wide', id: 'own-kernels' }, h('h3', {}, 'Your kernels (--plugin, --submission)'), dl([
        ...(D.plugins || []).map((p) => [`plugin ${p.name}`,
          `${p.path} (ABI version ${p.abi_version}): ${(p.variants || []).join(', ')}`]),
        ...(D.submissions || []).map((x) => [`submission ${x.name}`,
          `${x.path}; Python ${x.python || 'none'}${x.torch ? ', torch ' + x.torch : ''}` +
          `${x.skip ? '; its cases SKIP: ' + x.skip : ''}; problems: ${(x.problems || []).join(', ')}`])]))
      : null,
    h('div', { class: 'card wide' }, h('h3', {}, 'Command'), h('code', { class: 'cmd' }, D.command_line))));

  // ---- results table ----
  const m = (r) => r.metrics || {};
  const noise = (r) => (!timed(r) ? null : isNum(r.timing.robust_noise) ? r.timing.robust_noise : r.timing.noise);
  const copyButton = (r) => h('button', { class: 'copy', title: r.repro, onclick: (e) => NV.copy(r.repro, e.target) }, 'copy');
  const cols = [
    { key: 'problem', title: 'problem', text: (r) => r.problem, value: (r) => r.problem },
    { key: 'shape', title: 'shape', text: (r) => NV.shapeText(r.shape), value: (r) => r.shape, cls: () => 'shape' },
    { key: 'variant', title: 'variant', text: (r) => r.variant, value: (r) => r.variant, cls: () => 'nowrap' },
    { key: 'status', title: 'status', text: (r) => h('span', { class: 'st ' + r.status.toLowerCase() }, r.status), value: (r) => r.status },
    { key: 'median', title: 'median µs', num: true, text: (r) => (timed(r) ? us(r.timing.median_us) : '–'), value: (r) => (timed(r) ? r.timing.median_us : null) },
    { key: 'noise', title: 'noise %', num: true, tip: 'robust noise: 1.4826·MAD / median (older reports: stddev / mean)', text: (r) => fixed(100 * noise(r), 2), value: noise },
    { key: 'tflops', title: 'TFLOP/s', num: true, text: (r) => fixed(m(r).tflops, 1), value: (r) => m(r).tflops },
    { key: 'gbps', title: 'GB/s', num: true, text: (r) => fixed(m(r).gbps, 0), value: (r) => m(r).gbps },
    { key: 'sol', title: '% SOL', num: true, text: (r) => fixed(m(r).pct_sol, 1), value: (r) => m(r).pct_sol },
    // Only in reports with a measured decode+wgmma ceiling (GEMM family on CC 9.0, --sol measured).
    ...(results.some((r) => isNum(m(r).pct_ceiling)) ? [{ key: 'ceiling', title: '% ceiling', num: true,
      tip: 'TFLOP/s / the measured decode+wgmma ceiling (sol_measured.decode_wgmma_tflops)',
      text: (r) => fixed(m(r).pct_ceiling, 1), value: (r) => m(r).pct_ceiling }] : []),
    { key: 'vs_lt', title: '× cuBLASLt', num: true, tip: 'cublaslt median / this median', text: (r) => fixed(m(r).speedup_vs_cublaslt, 2), value: (r) => m(r).speedup_vs_cublaslt },
    { key: 'floor', title: 'floor µs', num: true, text: (r) => us(m(r).floor_us), value: (r) => m(r).floor_us },
    { key: 'vs_floor', title: '× floor', num: true, tip: 'this median / streaming floor', text: (r) => fixed(m(r).vs_floor, 2), value: (r) => m(r).vs_floor },
    { key: 'target', title: 'B200 µs', num: true, tip: 'gpu-mode B200 target', text: (r) => us(m(r).b200_target_us), value: (r) => m(r).b200_target_us },
    { key: 'samples', title: 'n', num: true, tip: 'timing samples', text: (r) => (r.timing ? r.timing.samples : '–'), value: (r) => (r.timing ? r.timing.samples : null) },
    { key: 'reason', title: 'reason / note', text: (r) => r.reason || '', value: (r) => r.reason, cls: () => 'reason' },
    { key: 'repro', title: 'repro', text: copyButton, value: (r) => r.repro },
  ];
  const table = NV.table(results, cols, {
    id: 'results-table', search: true,
    filters: [{ key: 'problem', label: 'problem', value: (r) => r.problem }, { key: 'variant', label: 'variant', value: (r) => r.variant },
      { key: 'status', label: 'status', plural: 'statuses', value: (r) => r.status }],
    rowClass: (r) => [r.status === 'FAIL' || r.status === 'ERROR' ? 'bad' : '', r.status === 'SKIP' ? 'skipped' : '',
      throttled(r) ? 'throttled' : ''].join(' ').trim() || null,
  });
  const tableSection = NV.section('results', 'Results',
    'Click a column to sort; the filters narrow the rows. Failures are red, throttled cases amber; "copy" copies the command that repeats one case.');
  tableSection.append(table.element);
  app.append(tableSection);

  // ---- time per shape, per problem ----
  const timeSection = NV.section('time', 'Time per shape',
    'Median time of each variant (bars, log scale) against the speed of light (SOL), the streaming floor that moves the same bytes, and the B200 target.');
  const grid = h('div', { class: 'grid' });
  timeSection.append(grid);
  app.append(timeSection);
  // SOL, floor and target: a line across each shape's group of bars (datasets of role 'reference').
  const groupMarkers = {
    id: 'groupMarkers',
    afterDatasetsDraw(chart) {
      const { ctx, scales: { x, y } } = chart;
      const half = (0.9 * chart.chartArea.width) / chart.data.labels.length / 2;
      chart.data.datasets.forEach((d, i) => {
        if (d.nvfp4Role !== 'reference' || !chart.isDatasetVisible(i)) return;
        ctx.save();
        ctx.strokeStyle = d.borderColor;
        ctx.lineWidth = d.borderWidth;
        ctx.setLineDash(d.borderDash || []);
        d.data.forEach((v, k) => {
          if (!isNum(v)) return;
          const px = x.getPixelForValue(k), py = y.getPixelForValue(v);
          ctx.beginPath(); ctx.moveTo(px - half, py); ctx.lineTo(px + half, py); ctx.stroke();
        });
        ctx.restore();
      });
    },
  };
  for (const p of problems) {
    const rs = results.filter((r) => r.problem === p);
    const shapes = NV.unique(rs.map((r) => r.shape));
    const variants = NV.unique(rs.filter(timed).map((r) => r.variant));
    if (!variants.length) continue;
    const at = (s, v) => rs.find((r) => r.shape === s && r.variant === v);
    const perShape = (f) => shapes.map((s) => { const r = rs.find((x) => x.shape === s && isNum(f(x))); return r ? f(r) : null; });
    const marker = (label, color, values, dash) => ({
      type: 'line', label, data: values, showLine: false, pointStyle: 'line', nvfp4Role: 'reference',
      pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 14, borderColor: color, backgroundColor: color, borderWidth: 2.5, borderDash: dash,
    });
    const datasets = variants.map((v) => ({
      type: 'bar', label: v, nvfp4Role: 'variant', pointStyle: 'rect', backgroundColor: NV.alpha(NV.variantColor(v), 0.85), borderColor: NV.variantColor(v),
      borderWidth: 1, data: shapes.map((s) => { const r = at(s, v); return r && timed(r) ? r.timing.median_us : null; }),
    }));
    datasets.push(marker('SOL', '#0f172a', perShape((r) => m(r).sol_us)));
    datasets.push(marker('streaming floor', '#0d9488', perShape((r) => m(r).floor_us), [7, 4]));
    datasets.push(marker('B200 target', '#dc2626', perShape((r) => m(r).b200_target_us)));
    const { card, canvas } = NV.chartCard(p, `${shapes.length} shapes × ${variants.length} variants`, 320);
    grid.append(card);
    NV.charts['time-' + p] = new Chart(canvas, {
      type: 'bar',
      data: { labels: shapes.map(NV.shapeLines), datasets },
      plugins: [groupMarkers],
      options: {
        interaction: { mode: 'nearest', intersect: true },
        scales: { y: { type: 'logarithmic', title: { display: true, text: 'µs per call (log)' }, ticks: { callback: NV.decadeTick },
          afterDataLimits: (a) => { a.min = 10 ** Math.floor(Math.log10(a.min)); a.max = 10 ** Math.ceil(Math.log10(a.max * 1.15)); } },
          x: { ticks: { autoSkip: false, maxRotation: 0, font: { size: shapes.length > 6 ? 10 : 11 } } } },
        plugins: { legend: { labels: { usePointStyle: true, pointStyleWidth: 18 } }, tooltip: { callbacks: {
          title: (items) => shapes[items[0].dataIndex],
          label: (c) => {
            const r = c.dataset.nvfp4Role === 'variant' ? at(shapes[c.dataIndex], c.dataset.label) : null;
            return `${c.dataset.label}: ${us(c.raw)} µs` + (r ? `  (${fixed(m(r).pct_sol, 1)} % SOL, ${fixed(m(r).vs_floor, 2)}× floor)` : '');
          } } } },
      },
    });
  }

  // ---- roofline ----
  const pts = results.filter((r) => timed(r) && isNum(m(r).tflops) && m(r).bytes > 0);
  if (pts.length) {
    const ai = (r) => m(r).flops / m(r).bytes;
    const xs = pts.map(ai);
    let x0 = Math.min(...xs) / 2, x1 = Math.max(...xs) * 2;
    const ceilings = [];
    const ceiling = (label, gbps, tflops, color, dash) => {
      const ridge = (tflops * 1e12) / (gbps * 1e9);
      x0 = Math.min(x0, ridge / 4); x1 = Math.max(x1, ridge * 4);
      ceilings.push({ label, gbps, tflops, ridge, color, dash });
    };
    if (D.sol_spec) ceiling(`spec: ${fixed(D.sol_spec.hbm_gbps, 0)} GB/s, ${fixed(D.sol_spec.tensor_tflops, 0)} TFLOP/s`, D.sol_spec.hbm_gbps, D.sol_spec.tensor_tflops, '#0f172a', []);
    if (M) {
      const t = isNum(M.fp4_tensor_tflops) ? M.fp4_tensor_tflops : M.fp16_tensor_tflops;
      ceiling(`measured: ${fixed(M.hbm_gbps, 0)} GB/s, ${fixed(t, 0)} TFLOP/s`, M.hbm_gbps, t, '#0d9488', [6, 4]);
    }
    const shapesOf = { gemv: 'circle', gemm: 'rect', dual_gemm: 'triangle', group_gemm: 'rectRot' };
    const datasets = NV.unique(pts.map((r) => r.variant)).map((v) => {
      const rs = pts.filter((r) => r.variant === v);
      return { type: 'scatter', label: v, nvfp4Role: 'variant', data: rs.map((r) => ({ x: ai(r), y: m(r).tflops })), nvfp4Rows: rs,
        pointStyle: rs.map((r) => shapesOf[r.problem] || 'star'), pointRadius: 6, pointHoverRadius: 8,
        backgroundColor: NV.alpha(NV.variantColor(v), 0.75), borderColor: NV.variantColor(v) };
    });
    for (const c of ceilings)
      datasets.push({ type: 'line', label: c.label, nvfp4Role: 'ceiling', borderColor: c.color, borderDash: c.dash, borderWidth: 2,
        pointRadius: 0, fill: false, data: [{ x: x0, y: (x0 * c.gbps) / 1e3 }, { x: c.ridge, y: c.tflops }, { x: x1, y: c.tflops }] });
    const sec = NV.section('roofline', 'Roofline',
      'Achieved TFLOP/s against arithmetic intensity (FLOP per byte moved), one point per case and variant; lines: bandwidth and tensor-core ceilings.' +
      ' Marker: ● gemv, ■ gemm, ▲ dual_gemm, ◆ group_gemm.');
    const { card, canvas } = NV.chartCard('Roofline', dev ? dev.name : '', 460, true);
    sec.append(card);
    app.append(sec);
    NV.charts.roofline = new Chart(canvas, {
      type: 'scatter', data: { datasets },
      options: {
        scales: { x: { type: 'logarithmic', min: x0, max: x1, title: { display: true, text: 'arithmetic intensity (FLOP/byte, log)' }, ticks: { callback: NV.decadeTick } },
          y: { type: 'logarithmic', title: { display: true, text: 'achieved TFLOP/s (log)' }, ticks: { callback: NV.decadeTick } } },
        plugins: { tooltip: { filter: (c) => c.dataset.nvfp4Role === 'variant', callbacks: { label: (c) => {
          const r = c.dataset.nvfp4Rows[c.dataIndex];
          return `${r.problem} ${r.shape} ${r.variant}: ${fixed(m(r).tflops, 1)} TFLOP/s at ${fixed(ai(r), 1)} FLOP/B`;
        } } } },
      },
    });
  }

  // ---- sample distributions ----
  const withSamples = results.filter((r) => timed(r) && Array.isArray(r.timing.samples_us) && r.timing.samples_us.length);
  if (withSamples.length) {
    const sec = NV.section('samples', 'Sample distributions',
      'Every timing sample divided by its case\'s median, one column per case and variant (jittered). Samples beyond the axis sit on its edge as triangles.');
    const sgrid = h('div', { class: 'grid' });
    sec.append(sgrid);
    app.append(sec);
    for (const p of problems) {
      const rs = withSamples.filter((r) => r.problem === p);
      if (!rs.length) continue;
      const labels = rs.map((r) => { const l = NV.shapeLines(r.shape); return [...(Array.isArray(l) ? [l[0]] : [l]), r.variant]; });
      // The axis spans the central 99 % of the ratios, at least ±3 %; the rest sit on its edges.
      const q = rs.flatMap((r) => r.timing.samples_us.filter(isNum).map((x) => x / r.timing.median_us)).sort((a, b) => a - b);
      const LO = Math.max(0.5, Math.floor(Math.min(0.97, q[Math.floor(0.005 * (q.length - 1))] - 0.005) * 50) / 50);
      const HI = Math.min(2, Math.ceil(Math.max(1.03, q[Math.ceil(0.995 * (q.length - 1))] + 0.005) * 50) / 50);
      const datasets = NV.unique(rs.map((r) => r.variant)).map((v) => {
        const data = [], style = [], raw = [];
        rs.forEach((r, i) => {
          if (r.variant !== v) return;
          const med = r.timing.median_us;
          r.timing.samples_us.forEach((s, k) => {
            if (!isNum(s)) return;
            const q = s / med, jitter = (((k * 2654435761) % 1000) / 1000 - 0.5) * 0.5;
            data.push({ x: i + jitter, y: Math.min(HI, Math.max(LO, q)) });
            style.push(q > HI ? 'triangle' : q < LO ? 'triangle' : 'circle');
            raw.push({ r, s });
          });
        });
        return { label: v, data, pointStyle: style, nvfp4Raw: raw, pointRadius: 2.5, backgroundColor: NV.alpha(NV.variantColor(v), 0.55), borderWidth: 0 };
      });
      const { card, canvas } = NV.chartCard(p, `${rs.length} cases, ${rs.reduce((a, r) => a + r.timing.samples_us.length, 0)} samples`, 280, true);
      sgrid.append(card);
      NV.charts['samples-' + p] = new Chart(canvas, {
        type: 'scatter', data: { datasets },
        options: {
          scales: {
            x: { min: -0.5, max: rs.length - 0.5, grid: { display: false },
              afterBuildTicks: (axis) => { axis.ticks = labels.map((_, i) => ({ value: i })); },
              ticks: { autoSkip: false, maxRotation: 0, font: { size: 11 }, callback: (v) => labels[v] || '' } },
            y: { min: LO, max: HI, title: { display: true, text: 'sample vs. median' },
              ticks: { callback: (v) => `${v >= 1 ? '+' : '−'}${Math.abs(100 * (v - 1)).toFixed(0)} %` } },
          },
          plugins: { tooltip: { callbacks: { label: (c) => {
            const { r, s } = c.dataset.nvfp4Raw[c.dataIndex];
            return `${r.shape} ${r.variant}: ${us(s)} µs (median ${us(r.timing.median_us)})`;
          } } } },
        },
      });
    }
  }

  app.append(h('footer', {}, `nvfp4bench ${D.tool.version} · schema ${D.schema} · drawn offline with Chart.js ${Chart.version}`));
})();
