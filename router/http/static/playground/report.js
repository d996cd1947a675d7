// The A/B report (GET /admin/ab-report) as tables and SVG charts, drawn with the DOM only.

const SVG = "http://www.w3.org/2000/svg";

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== "") node.textContent = text;
  return node;
}

function svg(tag, attributes = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== "") node.textContent = text;
  return node;
}

const ms = (seconds) => (seconds === null || seconds === undefined ? "–" : (seconds * 1000).toFixed(1));
const num = (value, digits = 1) => (value === null || value === undefined ? "–" : value.toFixed(digits));
const pct = (value) => (value === null || value === undefined ? "–" : `${(value * 100).toFixed(1)}%`);
const pValue = (p) => (p === null || p === undefined ? "–" : p < 0.001 ? p.toExponential(1) : p.toFixed(3));

const COLUMNS = [
  ["variant", (v) => v.variant],
  ["traffic", (v) => v.traffic.join(", ") || "–"],
  ["n", (v) => String(v.n)],
  ["errors", (v) => pct(v.n ? v.error_rate : null)],
  ["TTFT p50 ms", (v) => ms(v.ttft_s_p50)],
  ["TTFT p95 ms", (v) => ms(v.ttft_s_p95)],
  ["TPOT p50 ms", (v) => ms(v.tpot_s_p50)],
  ["TPOT p95 ms", (v) => ms(v.tpot_s_p95)],
  ["E2E p50 ms", (v) => ms(v.duration_s_p50)],
  ["output tokens (mean)", (v) => num(v.output_tokens_mean)],
  ["votes", (v) => String(v.votes)],
  ["win rate", (v) => pct(v.win_rate)],
  ["win rate CI", (v) => (v.win_rate_ci ? `${pct(v.win_rate_ci[0])} – ${pct(v.win_rate_ci[1])}` : "–")],
  ["win p", (v) => pValue(v.win_p_value)],
];

const METRIC_NAMES = {
  error_rate: "error rate", ttft_s: "TTFT", tpot_s: "TPOT", duration_s: "E2E",
  completion_tokens: "output tokens",
};

function variantTable(route, level) {
  const wrap = element("div", { class: "scroll" });
  const table = element("table", { class: "report-table" });
  table.append(element("caption", {}, `Route ${route.route}: variants (baseline ${route.baseline}; win rate with its ${level} interval)`));
  const headRow = element("tr");
  for (const [name] of COLUMNS) headRow.append(element("th", { scope: "col" }, name));
  const thead = element("thead");
  thead.append(headRow);
  table.append(thead);
  const body = element("tbody");
  for (const variant of route.variants) {
    const row = element("tr", { "data-variant": variant.variant });
    COLUMNS.forEach(([, cell], index) => {
      row.append(index === 0 ? element("th", { scope: "row" }, cell(variant)) : element("td", { class: "num" }, cell(variant)));
    });
    body.append(row);
  }
  table.append(body);
  wrap.append(table);
  return wrap;
}

function testTable(route, alpha) {
  const rows = Object.entries(route.tests).flatMap(([variant, tests]) => tests.map((t) => [variant, t]));
  if (!rows.length) return element("p", { class: "hint" }, "Too few samples for significance tests.");
  const wrap = element("div", { class: "scroll" });
  const table = element("table", { class: "report-table" });
  table.append(element("caption", {}, `Route ${route.route}: each variant against ${route.baseline} (alpha ${alpha})`));
  const head = element("tr");
  for (const name of ["variant", "metric", "test", "difference", "p-value", "verdict"]) head.append(element("th", { scope: "col" }, name));
  const thead = element("thead");
  thead.append(head);
  table.append(thead);
  const body = element("tbody");
  for (const [variant, t] of rows) {
    const row = element("tr");
    const difference = t.difference === null ? "–"
      : t.metric === "error_rate" ? `${(t.difference * 100).toFixed(1)} pp`
        : t.metric === "completion_tokens" ? t.difference.toFixed(1) : `${(t.difference * 1000).toFixed(1)} ms`;
    row.append(element("th", { scope: "row" }, variant), element("td", {}, METRIC_NAMES[t.metric] || t.metric),
      element("td", {}, t.test), element("td", { class: "num" }, difference),
      element("td", { class: "num" }, pValue(t.p_value)),
      element("td", {}, t.significant ? "significant" : "not significant"));
    body.append(row);
  }
  table.append(body);
  wrap.append(table);
  return wrap;
}

// Horizontal bars, one group per variant; `series` = [{label, value, low, high}] per variant.
// `width` is the chart's width on screen in CSS pixels, so its text keeps the page's size.
function barChart(title, variants, series, format, max, width) {
  const rowHeight = 18 * series.length + 10;
  const labelWidth = Math.round(Math.min(120, width * 0.3));
  const plotWidth = width - labelWidth - 70;
  const height = variants.length * rowHeight + 30;
  const figure = element("figure", { class: "chart" });
  figure.append(element("figcaption", {}, title));
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  const scale = (value) => (max > 0 ? (value / max) * plotWidth : 0);
  variants.forEach((variant, row) => {
    const top = row * rowHeight + 5;
    root.append(svg("text", { x: labelWidth - 6, y: top + rowHeight / 2, "text-anchor": "end",
      "dominant-baseline": "middle", class: "label" }, variant.variant));
    series.forEach((serie, index) => {
      const point = serie.value(variant);
      const y = top + index * 18;
      if (point === null || point === undefined) {
        root.append(svg("text", { x: labelWidth + 4, y: y + 12, class: "value" }, `${serie.label}: –`));
        return;
      }
      root.append(svg("rect", { x: labelWidth, y, width: Math.max(1, scale(point)), height: 14,
        class: `bar bar-${index}` }));
      const interval = serie.interval && serie.interval(variant);
      if (interval) {
        const [low, high] = interval.map(scale);
        root.append(svg("line", { x1: labelWidth + low, x2: labelWidth + high, y1: y + 7, y2: y + 7, class: "whisker" }));
        for (const x of [low, high]) root.append(svg("line", { x1: labelWidth + x, x2: labelWidth + x, y1: y + 2, y2: y + 12, class: "whisker" }));
      }
      root.append(svg("text", { x: labelWidth + Math.max(scale(point), interval ? scale(interval[1]) : 0) + 6, y: y + 11,
        class: "value" }, `${serie.label} ${format(point)}`));
    });
  });
  figure.append(root);
  return { figure, root, labelWidth, plotWidth, height, scale };
}

function latencyChart(route, width) {
  const values = route.variants.flatMap((v) => [v.ttft_s_p50, v.ttft_s_p95]).filter((x) => x !== null);
  const max = Math.max(0, ...values);
  return barChart(`${route.route}: time to first token (ms)`, route.variants, [
    { label: "p50", value: (v) => v.ttft_s_p50 },
    { label: "p95", value: (v) => v.ttft_s_p95 },
  ], (x) => (x * 1000).toFixed(0), max, width).figure;
}

function winChart(route, level, width) {
  const voted = route.variants.filter((v) => v.votes > 0);
  if (!voted.length) return null;
  const chart = barChart(`${route.route}: win rate from votes, ${level} interval`, voted, [
    { label: "win", value: (v) => v.win_rate, interval: (v) => v.win_rate_ci },
  ], (x) => `${(x * 100).toFixed(0)}%`, 1, width);
  // Even odds: a variant whose interval crosses this line is not shown better or worse.
  const x = chart.labelWidth + chart.scale(0.5);
  chart.root.append(svg("line", { x1: x, x2: x, y1: 0, y2: chart.height - 20, class: "reference" }));
  chart.root.append(svg("text", { x, y: chart.height - 6, "text-anchor": "middle", class: "value" }, "50%"));
  return chart.figure;
}

export function renderReport(container, report) {
  container.replaceChildren();
  const level = `${Math.round((1 - report.alpha) * 100)}%`;
  if (!report.routes.length) {
    container.append(element("p", { class: "hint" }, `No completed generations or votes in ${report.record_file} for this selection.`));
    return;
  }
  for (const route of report.routes) {
    const section = element("section", { class: "report-route", "data-route": route.route });
    section.append(element("h3", {}, `Route ${route.route}`));
    section.append(variantTable(route, level), testTable(route, report.alpha));
    const charts = element("div", { class: "charts" });
    section.append(charts);
    container.append(section);
    const columns = getComputedStyle(charts).gridTemplateColumns.split(" ").length;
    const width = Math.max(260, Math.min(640, Math.floor(charts.clientWidth / columns) - 16));
    charts.append(latencyChart(route, width));
    const wins = winChart(route, level, width);
    if (wins) charts.append(wins);
  }
}
