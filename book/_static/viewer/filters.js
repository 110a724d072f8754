/* Filters, search and sort over a loaded level, pure: every test is made once per distinct value of
 * a column, then read per row through its code. */

import { keyed, parseQuery } from "./text.js";

/** @typedef {import("./data.js").Column} Column */
/** @typedef {import("./data.js").Codes} Codes */
/** @typedef {import("./data.js").Value} Value */
/** @typedef {import("./url-state.js").ViewState} ViewState */
/** @typedef {{keep: Uint8Array, codes: Codes}} FacetMask */

/* A column's distinct values as searched: lower-case, runs of spaces as one, lists joined. */
const SPACES = /\s\s|[\t\n\r\f\v\u00a0\u3000]/;
const LOWER_KEPT = 20000;

/**
 * @param {Column} column
 * @returns {string[]}
 */
export function lowered(column) {
  if (column.lower) {
    return column.lower;
  }
  const lower = (column.dict || []).map((value) => {
    const text = (Array.isArray(value) ? value.join(" ") : String(value)).toLowerCase();
    return SPACES.test(text) ? text.replace(/\s+/g, " ") : text;
  });
  // kept for the next search only where small: a copy of every text would double the memory the
  // level takes, for some 10 ms a search
  if (column.size <= LOWER_KEPT) {
    column.lower = lower;
  }
  return lower;
}

/**
 * Which codes of a column hold ``needle`` (one byte per distinct value, and 0 for missing); null
 * when none does.
 * @param {Column} column
 * @param {string} needle
 * @param {string[]} [lower]
 * @returns {Uint8Array | null}
 */
export function codesHolding(column, needle, lower) {
  const texts = lower || lowered(column);
  const hits = new Uint8Array(column.size + 1);
  let any = false;
  for (let k = 0; k < texts.length; k += 1) {
    if (texts[k].indexOf(needle) !== -1) { hits[k] = 1; any = true; }
  }
  return any ? hits : null;
}

/**
 * One byte per code of ``column``: 1 where ``test(value)`` holds (missing: 0).
 * @param {Column} column
 * @param {(value: Value) => boolean} test
 * @returns {Uint8Array}
 */
export function codesWhere(column, test) {
  const keep = new Uint8Array(column.size + 1);
  const dict = column.dict || [];
  for (let k = 0; k < column.size; k += 1) { keep[k] = test(dict[k]) ? 1 : 0; }
  return keep;
}

/**
 * How many rows of ``rows`` (all ``n`` when null) have each code of ``column`` (the last: missing).
 * @param {Column} column
 * @param {ArrayLike<number> | null} rows
 * @param {number} n
 * @returns {Float64Array}
 */
export function codeCounts(column, rows, n) {
  const counts = new Float64Array(column.size + 1);
  const codes = /** @type {Codes} */ (column.codes);
  if (rows === null) {
    for (let i = 0; i < n; i += 1) { counts[codes[i]] += 1; }
  } else {
    for (let j = 0; j < rows.length; j += 1) { counts[codes[rows[j]]] += 1; }
  }
  return counts;
}

/**
 * Value -> count, from the counts of a label or labels column's codes (a list counts under each label).
 * @param {Column} column
 * @param {ArrayLike<number>} counts
 * @returns {Record<string, number>}
 */
export function valueCounts(column, counts) {
  /** @type {Record<string, number>} */
  const out = keyed();
  const dict = column.dict || [];
  for (let k = 0; k < column.size; k += 1) {
    if (!counts[k]) { continue; }
    const value = dict[k];
    (Array.isArray(value) ? value : [value]).forEach((v) => { out[String(v)] = (out[String(v)] || 0) + counts[k]; });
  }
  return out;
}

/**
 * True when a value (a label, or a list of labels) is one of ``wanted``.
 * @param {Record<string, boolean>} wanted
 * @param {Value} value
 * @returns {boolean}
 */
function chosen(wanted, value) {
  if (Array.isArray(value)) {
    for (let j = 0; j < value.length; j += 1) { if (wanted[value[j]] === true) { return true; } }
    return false;
  }
  return wanted[String(value)] === true;
}

/**
 * @typedef {object} Masks
 * @property {Uint8Array} base 1 where a row passes the search and the ranges
 * @property {Record<string, FacetMask>} facets per label filter, the codes it keeps
 * @property {number} words the search's words
 * @property {number} stopped the words tested before the budget ran out (0: all)
 */

/**
 * Rows that pass the search, the ranges and each label filter, as separate masks (for the chip
 * counts). ``base`` is filled in place (one buffer for a level, reused by every refresh).
 * @param {Record<string, Column>} columns
 * @param {number} n rows of the level
 * @param {ViewState} state
 * @param {Column[]} searched the columns a search reads
 * @param {Uint8Array} base
 * @param {number} budgetMs a search stops testing further words after this long
 * @param {() => number} [now]
 * @returns {Masks}
 */
export function computeMasks(columns, n, state, searched, base, budgetMs, now = () => performance.now()) {
  base.fill(1);
  /** @type {Array<string[] | null>} */
  const lowers = searched.map(() => null); // each column lowered once per search
  const needles = parseQuery(state.q);
  const started = now();
  let stopped = 0;
  for (let w = 0; w < needles.length; w += 1) {
    if (w > 0 && now() - started > budgetMs) {
      stopped = w; // the rows shown hold the first w words; the reader is told
      break;
    }
    /** @type {Uint8Array[]} */
    const hits = [];
    /** @type {Codes[]} */
    const codes = [];
    for (let s = 0; s < searched.length; s += 1) {
      const lower = (lowers[s] = lowers[s] || lowered(searched[s]));
      const found = codesHolding(searched[s], needles[w], lower);
      if (found) { hits.push(found); codes.push(/** @type {Codes} */ (searched[s].codes)); }
    }
    for (let i = 0; i < n; i += 1) {
      if (!base[i]) { continue; }
      let ok = 0;
      for (let c = 0; c < hits.length && !ok; c += 1) { ok = hits[c][codes[c][i]]; }
      base[i] = ok;
    }
  }
  Object.keys(state.ranges).forEach((name) => {
    const column = columns[name];
    const range = state.ranges[name];
    if (!column || !column.dict || !column.codes) { return; }
    const keep = codesWhere(column, (v) => {
      const x = Number(v);
      return !((range[0] !== null && x < range[0]) || (range[1] !== null && x > range[1]));
    });
    const codes = column.codes;
    for (let i = 0; i < n; i += 1) {
      if (!keep[codes[i]]) { base[i] = 0; }
    }
  });
  /** @type {Record<string, FacetMask>} */
  const facets = keyed();
  Object.keys(state.facets).forEach((name) => {
    const column = columns[name];
    if (!column || !column.dict || !column.codes) { return; }
    /** @type {Record<string, boolean>} */
    const wanted = keyed();
    state.facets[name].forEach((v) => { wanted[v] = true; });
    facets[name] = { keep: codesWhere(column, (v) => chosen(wanted, v)), codes: column.codes };
  });
  return { base, facets, words: needles.length, stopped };
}

/**
 * True when row ``i`` passes every facet mask of ``facets``.
 * @param {FacetMask[]} facets
 * @param {number} i
 * @returns {boolean}
 */
export function passes(facets, i) {
  for (let f = 0; f < facets.length; f += 1) {
    if (!facets[f].keep[facets[f].codes[i]]) { return false; }
  }
  return true;
}

/**
 * Marks in ``base`` the rows passing all but a label filter with 2 (for the chips' counts): 1 then
 * means passes everything.
 * @param {Masks} masks
 * @param {number} n
 */
export function markFacets(masks, n) {
  const facets = Object.keys(masks.facets).map((name) => masks.facets[name]);
  if (!facets.length) {
    return;
  }
  for (let i = 0; i < n; i += 1) {
    if (masks.base[i] && !passes(facets, i)) { masks.base[i] = 2; }
  }
}

/**
 * Per label column, value -> rows that pass every filter but that column's own.
 * @param {Record<string, Column>} columns
 * @param {number} n
 * @param {Masks} masks (after markFacets)
 * @param {string[]} names the label columns
 * @returns {Record<string, Record<string, number>>}
 */
export function chipCounts(columns, n, masks, names) {
  /** @type {Record<string, Record<string, number>>} */
  const counts = keyed();
  const filtered = Object.keys(masks.facets);
  const base = masks.base;
  names.forEach((name) => {
    const others = filtered.filter((other) => other !== name).map((other) => masks.facets[other]);
    const column = columns[name];
    const perCode = new Float64Array(column.size + 1);
    const codes = /** @type {Codes} */ (column.codes);
    for (let i = 0; i < n; i += 1) {
      if (base[i] === 1 || (base[i] === 2 && passes(others, i))) { perCode[codes[i]] += 1; }
    }
    counts[name] = valueCounts(column, perCode);
  });
  return counts;
}

/**
 * The rows whose byte in ``keep`` is 1, in the order of ``codes`` (else in file order), in one
 * array: a counting sort of their codes, which follow the order of the values; ties keep the rows'
 * order and missing values (code ``size``) come last either way.
 * @param {Uint8Array} keep
 * @param {Codes | null} codes
 * @param {number} size
 * @param {boolean} desc
 * @returns {Uint32Array}
 */
export function sortRows(keep, codes, size, desc) {
  const n = keep.length;
  let count = 0;
  for (let i = 0; i < n; i += 1) { count += keep[i] === 1 ? 1 : 0; }
  const sorted = new Uint32Array(count);
  if (!codes) {
    for (let r = 0, at = 0; r < n; r += 1) {
      if (keep[r] === 1) { sorted[at] = r; at += 1; }
    }
    return sorted;
  }
  const starts = new Uint32Array(size + 2);
  for (let j = 0; j < n; j += 1) {
    if (keep[j] !== 1) { continue; }
    const code = codes[j];
    starts[(code === size || !desc ? code : size - 1 - code) + 1] += 1;
  }
  for (let k = 1; k < starts.length; k += 1) { starts[k] += starts[k - 1]; }
  for (let row = 0; row < n; row += 1) {
    if (keep[row] !== 1) { continue; }
    const c = codes[row];
    const slot = c === size || !desc ? c : size - 1 - c;
    sorted[starts[slot]] = row;
    starts[slot] += 1;
  }
  return sorted;
}

/**
 * Forget a sort, filters and ranges naming no column of the level on screen (a crafted or an old
 * link), so that the view and its link hold only what the grid shows. A filter of another level is
 * kept where this level has the same column (the filters survive a change of level).
 * @param {Record<string, {kind: string}>} columns
 * @param {ViewState} state changed in place
 */
export function keepKnownColumns(columns, state) {
  /** @param {string} name */
  const kindOf = (name) => {
    const column = Object.prototype.hasOwnProperty.call(columns, name) ? columns[name] : null;
    return column && column.kind !== "hidden" ? column.kind : "";
  };
  if (state.sort && !kindOf(state.sort)) {
    state.sort = "";
    state.desc = false;
  }
  Object.keys(state.facets).forEach((name) => {
    const kind = kindOf(name);
    if (kind !== "label" && kind !== "labels") { delete state.facets[name]; }
  });
  Object.keys(state.ranges).forEach((name) => {
    if (kindOf(name) !== "number") { delete state.ranges[name]; }
  });
}
