/* Which columns of a loaded level the viewer shows, searches and summarises. */

import { codeCounts, valueCounts } from "./filters.js";
import { own } from "./text.js";

/** @typedef {import("./data.js").Column} Column */
/** @typedef {import("./data.js").LevelData} LevelData */

/* A label column of more distinct values than this gets no filter chips (and, when each is held by
 * one row only, no statistics panel: those are ids). */
export const FACET_LIMIT = 60;

/**
 * The columns of the grid: those that name a row first (the dataset's ``identifying`` columns of
 * this level), then the others in the files' order; a column without any value is left out.
 * @param {LevelData} data
 * @returns {Column[]}
 */
export function visibleColumns(data) {
  const shown = data.info.columns.filter((column) => column.kind !== "hidden" && column.size > 0)
    .map((column) => data.columns[column.name]);
  const first = own(data.manifest.identifying, data.level) || [];
  /** @param {Column} column */
  const rank = (column) => {
    const at = first.indexOf(column.name);
    return at === -1 ? first.length : at;
  };
  return shown.map((column, k) => ({ column, k })).sort((a, b) => rank(a.column) - rank(b.column) || a.k - b.k)
    .map((pair) => pair.column);
}

/**
 * The columns a search reads: every string column of the row (labels, ids and glosses too), but
 * a lazy one, whose values the browser does not hold for every row.
 * @param {LevelData} data
 * @returns {Column[]}
 */
export function searchableColumns(data) {
  return Object.keys(data.columns).map((name) => data.columns[name])
    .filter((column) => column.stored !== "number" && !column.lazy);
}

/**
 * True for a label column of more than a few values each held by one row (ids, not categories).
 * @param {Column} column
 * @param {number} rows
 * @returns {boolean}
 */
export function holdsIds(column, rows) {
  if ((column.kind !== "label" && column.kind !== "labels") || column.size <= FACET_LIMIT || !column.codes) {
    return false;
  }
  const counts = valueCounts(column, codeCounts(column, null, rows));
  return Object.keys(counts).every((value) => counts[value] === 1);
}

/**
 * The columns that get a statistics panel: not the row's id, not a column without any value, not
 * a list of ids (labels each held by one row only: KILT's example ids).
 * @param {LevelData} data
 * @returns {Column[]}
 */
export function statColumns(data) {
  return visibleColumns(data).filter((column) => column.kind !== "id" && column.name !== data.info.id &&
    column.size > 0 && !holdsIds(column, data.rows));
}
