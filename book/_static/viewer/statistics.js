/* Column statistics, as pandas computes them (std with one degree of freedom), and histograms whose
 * bins are whole numbers for a column of whole numbers. Pure: unit-tested under node. */

/**
 * @typedef {object} Summary
 * @property {number} count
 * @property {number} [min]
 * @property {number} [max]
 * @property {number} [mean]
 * @property {number} [median]
 * @property {number | null} [std]
 * @property {Float64Array} [sorted]
 */

/**
 * @param {ArrayLike<number>} values
 * @returns {Summary}
 */
export function describe(values) {
  const n = values.length;
  if (!n) {
    return { count: 0 };
  }
  const sorted = (values instanceof Float64Array ? values : Float64Array.from(values)).sort();
  let sum = 0;
  for (let i = 0; i < n; i += 1) { sum += sorted[i]; }
  const mean = sum / n;
  let squares = 0;
  for (let j = 0; j < n; j += 1) { squares += (sorted[j] - mean) * (sorted[j] - mean); }
  const middle = Math.floor(n / 2);
  return {
    count: n,
    min: sorted[0],
    max: sorted[n - 1],
    mean,
    median: n % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2,
    std: n > 1 ? Math.sqrt(squares / (n - 1)) : null,
    sorted,
  };
}

/**
 * @typedef {object} Bin
 * @property {number} from the bin's lowest value
 * @property {number} to its highest (whole numbers: included) or its end (excluded, but for the last)
 * @property {number} count
 */

/** The most bars a histogram draws. */
export const MAX_BINS = 20;

/**
 * The bins of a histogram of sorted values. Whole numbers get whole-number bins (each covering
 * ``from`` to ``to``, both included, the same width each); other numbers ``MAX_BINS`` at most,
 * about the square root of the count.
 * @param {ArrayLike<number>} sorted
 * @returns {{bins: Bin[], integers: boolean}}
 */
export function histogramBins(sorted) {
  const n = sorted.length;
  if (!n) {
    return { bins: [], integers: true };
  }
  let integers = true;
  for (let i = 0; i < n && integers; i += 1) {
    integers = Math.round(sorted[i]) === sorted[i];
  }
  const min = sorted[0];
  const max = sorted[n - 1];
  /** @type {Bin[]} */
  const bins = [];
  if (integers) {
    const width = Math.max(1, Math.ceil((max - min + 1) / MAX_BINS));
    const count = Math.floor((max - min) / width) + 1;
    for (let b = 0; b < count; b += 1) {
      bins.push({ from: min + b * width, to: min + (b + 1) * width - 1, count: 0 });
    }
    for (let i = 0; i < n; i += 1) { bins[Math.floor((sorted[i] - min) / width)].count += 1; }
    return { bins, integers };
  }
  const count = Math.min(MAX_BINS, Math.max(1, Math.ceil(Math.sqrt(n))));
  const width = (max - min) / count || 1;
  for (let b = 0; b < count; b += 1) {
    bins.push({ from: min + b * width, to: b === count - 1 ? max : min + (b + 1) * width, count: 0 });
  }
  for (let i = 0; i < n; i += 1) {
    bins[Math.min(count - 1, Math.floor((sorted[i] - min) / width))].count += 1;
  }
  return { bins, integers };
}

/**
 * The share of ``part`` in ``whole`` as a percentage, one decimal ("0 %" of nothing).
 * @param {number} part
 * @param {number} whole
 * @returns {string}
 */
export function percent(part, whole) {
  if (!whole) {
    return "0 %";
  }
  const value = (100 * part) / whole;
  return (value > 0 && value < 0.1 ? "<0.1" : String(Math.round(value * 10) / 10)) + " %";
}
