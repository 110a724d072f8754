/* The column statistics of the matching rows: a <details> (statisticsBox) holding a panel per column
 * (statPanel): for numbers a summary and a histogram (a bar filters on a click), for text and lists
 * their lengths, for labels every value with its count (a value filters on a click), and the share
 * of empty values. Functions returning their elements. */

import { statColumns } from "./columns.js";
import { button, clear, make } from "./dom.js";
import { codeCounts, valueCounts } from "./filters.js";
import { describe, histogramBins, percent } from "./statistics.js";
import { codePoints, fmt } from "./text.js";

/** @typedef {import("./data.js").Column} Column */

/**
 * @typedef {object} StatContext what a panel reads and what its clicks do
 * @property {import("./data.js").LevelData} data
 * @property {(name: string) => string[]} chosen the values of a label filter
 * @property {(name: string, value: string, on: boolean) => void} toggleFacet
 * @property {(name: string, range: Array<number | null>) => void} setRange
 */

/**
 * The panels of a level's columns, drawn when the box is opened and, while it is open, at each draw()
 * (the viewer's refresh).
 * @param {StatContext & {matches: () => Uint32Array}} context ``matches``: the matching rows
 * @returns {HTMLDetailsElement & {draw: () => void}}
 */
export function statisticsBox(context) {
  const box = /** @type {HTMLDetailsElement & {draw: () => void}} */ (make("details", "atlas-viewer-stats"));
  box.appendChild(make("summary", null, "Column statistics"));
  const body = make("div", "atlas-viewer-statsbody");
  box.appendChild(body);
  const data = context.data;
  box.draw = () => {
    if (!box.open) {
      return;
    }
    const rows = context.matches();
    clear(body);
    body.appendChild(make("p", "atlas-viewer-note",
      "Of the " + fmt(rows.length) + " matching " + data.level + " rows (of " + fmt(data.rows) + " in the split). " +
      "Numbers: min, max, mean, median, standard deviation (n \u2212 1) and a histogram (click a bar to filter); " +
      "text and lists: their lengths; labels: every value with its count (click one to filter); and the share of " +
      "empty values."));
    statColumns(data).forEach((column) => { body.appendChild(statPanel(column, rows, context)); });
  };
  box.addEventListener("toggle", () => { box.draw(); });
  return box;
}

/**
 * @param {Column} column
 * @param {Uint32Array} rows
 * @param {StatContext} context
 * @returns {HTMLElement}
 */
export function statPanel(column, rows, context) {
  const data = context.data;
  const box = make("div", "atlas-viewer-stat");
  box.setAttribute("data-column", column.name);
  box.setAttribute("data-kind", column.kind);
  box.appendChild(make("div", "atlas-viewer-stat-title", column.name + " (" + column.kind + ")"));
  const note = (data.manifest.column_notes || {})[column.name];
  if (note) { box.appendChild(make("div", "atlas-viewer-stat-note", note)); }
  if (column.paged) {
    // its values are not held here: the lengths over the split were computed with the files
    if (rows.length === data.rows && column.splitLengths) {
      numberSummary(box, column, /** @type {any} */ (column.splitLengths), 0, rows.length, context);
    } else {
      box.appendChild(make("div", "atlas-viewer-stat-summary", "not computed for a filter: " + fmt(column.size) +
        " distinct values, fetched only for the rows on screen"));
    }
    return box;
  }
  const perCode = codeCounts(column, rows.length === data.rows ? null : rows, data.rows);
  const missing = perCode[column.size];
  const dict = column.dict || [];
  if (column.kind !== "label") {
    const measure = column.kind === "number" ? (/** @type {any} */ v) => v
      : column.kind === "labels" ? (/** @type {any} */ v) => v.length : (/** @type {any} */ v) => codePoints(String(v));
    const numbers = new Float64Array(rows.length - missing);
    for (let k = 0, at = 0; k < column.size; k += 1) {
      if (!perCode[k]) { continue; }
      numbers.fill(measure(dict[k]), at, at + perCode[k]);
      at += perCode[k];
    }
    numberSummary(box, column, describe(numbers), missing, rows.length, context);
  }
  if (column.kind === "label" || column.kind === "labels") {
    const counts = valueCounts(column, perCode);
    const list = make("ul", "atlas-viewer-values");
    const chosen = context.chosen(column.name);
    Object.keys(counts).sort((a, b) => counts[b] - counts[a] || (a < b ? -1 : a > b ? 1 : 0)).forEach((value) => {
      const li = make("li");
      li.setAttribute("data-value", value);
      li.setAttribute("data-count", String(counts[value]));
      const pick = button(value, "atlas-viewer-value");
      pick.title = "show only the rows with " + column.name + " " + value;
      pick.setAttribute("aria-pressed", chosen.indexOf(value) !== -1 ? "true" : "false");
      pick.addEventListener("click", () => { context.toggleFacet(column.name, value, chosen.indexOf(value) === -1); });
      const track = make("span", "atlas-viewer-track");
      const fill = make("span", "atlas-viewer-fill");
      fill.style.width = (100 * counts[value]) / Math.max(rows.length, 1) + "%";
      track.appendChild(fill);
      li.appendChild(pick);
      li.appendChild(track);
      li.appendChild(make("span", "atlas-viewer-number", fmt(counts[value])));
      list.appendChild(li);
    });
    if (missing) {
      list.appendChild(make("li", "atlas-viewer-missing", "empty: " + fmt(missing) + " (" + percent(missing, rows.length) + ")"));
    }
    box.appendChild(list);
  }
  return box;
}

/**
 * A summary line and a histogram with axes; a bar of a number column filters on a click.
 * @param {HTMLElement} box
 * @param {Column} column
 * @param {import("./statistics.js").Summary} stats
 * @param {number} missing
 * @param {number} total
 * @param {StatContext} context
 */
function numberSummary(box, column, stats, missing, total, context) {
  ["count", "min", "max", "mean", "median", "std"].forEach((key) => {
    const value = /** @type {any} */ (stats)[key];
    if (value !== undefined && value !== null) { box.setAttribute("data-" + key, String(value)); }
  });
  box.setAttribute("data-missing", String(missing));
  const what = column.kind === "number" ? "" : column.kind === "labels" ? "labels per row: " : "length (characters, spaces included): ";
  box.appendChild(make("div", "atlas-viewer-stat-summary", what + (stats.count ?
    "min " + fmt(stats.min) + " \u00b7 max " + fmt(stats.max) + " \u00b7 mean " + fmt(stats.mean) +
    " \u00b7 median " + fmt(stats.median) + " \u00b7 std " + fmt(stats.std) + " \u00b7 " + fmt(stats.count) + " values"
    : "no values") + " \u00b7 empty: " + fmt(missing) + " (" + percent(missing, total) + ")"));
  if (stats.sorted && stats.count) {
    box.appendChild(histogram(column, stats.sorted, context));
  }
}

/**
 * @param {Column} column
 * @param {Float64Array} sorted
 * @param {StatContext} context
 * @returns {HTMLElement}
 */
function histogram(column, sorted, context) {
  const { bins, integers } = histogramBins(sorted);
  const clickable = column.kind === "number";
  const figure = make("div", "atlas-viewer-hist");
  /** @param {import("./statistics.js").Bin} bin */
  const span = (bin) => (integers && bin.from === bin.to ? fmt(bin.from) : fmt(bin.from) + "\u2013" + fmt(bin.to));
  const top = Math.max(...bins.map((bin) => bin.count));
  const what = column.kind === "number" ? column.name : column.kind === "labels" ? "labels per row" : "length";
  const plot = make("div", "atlas-viewer-plot");
  const yAxis = make("div", "atlas-viewer-yaxis");
  yAxis.setAttribute("aria-hidden", "true");
  yAxis.appendChild(make("span", null, fmt(top)));
  yAxis.appendChild(make("span", null, "0"));
  plot.appendChild(yAxis);
  const bars = make("div", "atlas-viewer-bars");
  bars.setAttribute("role", clickable ? "group" : "img");
  bars.setAttribute("aria-label", "histogram of " + what + " (" + column.name + "): " +
    bins.map((bin) => span(bin) + ": " + bin.count).join(", "));
  bins.forEach((bin) => {
    const label = what + " " + span(bin) + ": " + fmt(bin.count) + " rows";
    const bar = clickable ? button("", "atlas-viewer-bar") : make("span", "atlas-viewer-bar");
    bar.style.height = (top ? (100 * bin.count) / top : 0) + "%";
    bar.title = label + (clickable ? " (click to show only these)" : "");
    bar.setAttribute("data-from", String(bin.from));
    bar.setAttribute("data-to", String(bin.to));
    bar.setAttribute("data-count", String(bin.count));
    if (clickable) {
      bar.setAttribute("aria-label", label + ", filter to these");
      bar.addEventListener("click", () => { context.setRange(column.name, [bin.from, bin.to]); });
    }
    bars.appendChild(bar);
  });
  plot.appendChild(bars);
  figure.appendChild(plot);
  const xAxis = make("div", "atlas-viewer-xaxis");
  xAxis.setAttribute("aria-hidden", "true");
  xAxis.appendChild(make("span", null, fmt(bins[0].from)));
  xAxis.appendChild(make("span", "atlas-viewer-axis-name", what));
  xAxis.appendChild(make("span", null, fmt(sorted[sorted.length - 1])));
  figure.appendChild(xAxis);
  return figure;
}
