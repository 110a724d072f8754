/* The view in the URL's hash (#viewer=dataset/split&level=...): read and written here, pure. A link
 * is untrusted: its keys index only prototype-less objects, its search is capped, an unknown level
 * is the dialogues, and its query is only shown (the reader runs it). */

import { SEARCH_CAP, keyed } from "./text.js";

export const HASH_KEY = "viewer";
export const LEVELS = ["dialogues", "turns", "evidence"];
/* The most rows a page of the grid shows (a link asking for more gets this many). */
export const MAX_PER_PAGE = 1000;

/**
 * @typedef {object} ViewState
 * @property {string} split dataset/split
 * @property {string} level one of LEVELS
 * @property {string} q the search
 * @property {boolean} [searchCut] the link's search was longer than SEARCH_CAP
 * @property {string} sort the column sorted by ("" for file order)
 * @property {boolean} desc
 * @property {number} page from 0
 * @property {number} per rows per page (0: the viewer's own number)
 * @property {string | null} row the id of the open row
 * @property {string | null} [pin] the id of the row pinned beside it (compared)
 * @property {string} sql
 * @property {Record<string, string[]>} facets column -> chosen values
 * @property {Record<string, Array<number | null>>} ranges column -> [from, to]
 */

/**
 * A complete view from a partial one (a control's, or a link's).
 * @param {Partial<ViewState> & {split: string}} partial
 * @returns {ViewState}
 */
export function fullState(partial) {
  const q = partial.q || "";
  return {
    split: partial.split,
    level: partial.level && LEVELS.indexOf(partial.level) !== -1 ? partial.level : "dialogues",
    q: q.slice(0, SEARCH_CAP),
    searchCut: !!partial.searchCut || q.length > SEARCH_CAP,
    sort: partial.sort || "",
    desc: !!partial.desc,
    page: partial.page || 0,
    per: partial.per && partial.per > 0 ? Math.min(Math.floor(partial.per), MAX_PER_PAGE) : 0,
    row: partial.row === undefined ? null : partial.row,
    pin: partial.pin === undefined ? null : partial.pin,
    sql: partial.sql || "",
    facets: partial.facets || keyed(),
    ranges: partial.ranges || keyed(),
  };
}

/**
 * The view a hash holds (``null``: the hash is not the viewer's).
 * @param {string} hash the URL's hash, with or without its "#"
 * @returns {ViewState | null}
 */
export function readHash(hash) {
  const raw = hash.charAt(0) === "#" ? hash.slice(1) : hash;
  if (raw.indexOf(HASH_KEY + "=") !== 0) {
    return null;
  }
  const params = new URLSearchParams(raw);
  /** @type {Record<string, string[]>} */
  const facets = keyed();
  /** @type {Record<string, Array<number | null>>} */
  const ranges = keyed();
  params.getAll("f").forEach((item) => {
    const at = item.indexOf("=");
    if (at > 0) {
      const name = item.slice(0, at);
      (facets[name] = facets[name] || []).push(item.slice(at + 1));
    }
  });
  params.getAll("r").forEach((item) => {
    const match = /^(.*)=(-?[\d.eE+-]*)~(-?[\d.eE+-]*)$/.exec(item);
    if (match) {
      ranges[match[1]] = [match[2] === "" ? null : Number(match[2]), match[3] === "" ? null : Number(match[3])];
    }
  });
  return fullState({
    split: params.get(HASH_KEY) || "",
    level: params.get("level") || "dialogues",
    q: params.get("q") || "",
    sort: params.get("sort") || "",
    desc: params.get("desc") === "1",
    page: Math.max(0, (parseInt(params.get("page") || "1", 10) || 1) - 1),
    per: parseInt(params.get("per") || "0", 10) || 0,
    row: params.get("row"),
    pin: params.get("pin"),
    sql: params.get("sql") || "",
    facets,
    ranges,
  });
}

/**
 * The hash holding a view (read back by readHash).
 * @param {ViewState} state
 * @returns {string}
 */
export function writeHash(state) {
  const params = new URLSearchParams();
  params.set(HASH_KEY, state.split);
  params.set("level", state.level);
  if (state.q) { params.set("q", state.q); }
  if (state.sort) { params.set("sort", state.sort); }
  if (state.sort && state.desc) { params.set("desc", "1"); }
  if (state.page) { params.set("page", String(state.page + 1)); }
  if (state.per) { params.set("per", String(state.per)); }
  Object.keys(state.facets).forEach((name) => {
    state.facets[name].forEach((value) => { params.append("f", name + "=" + value); });
  });
  Object.keys(state.ranges).forEach((name) => {
    const range = state.ranges[name];
    params.append("r", name + "=" + (range[0] === null ? "" : range[0]) + "~" + (range[1] === null ? "" : range[1]));
  });
  if (state.row !== null && state.row !== undefined) { params.set("row", state.row); }
  if (state.pin !== null && state.pin !== undefined) { params.set("pin", state.pin); }
  if (state.sql) { params.set("sql", state.sql); }
  /** @type {string[]} */
  const parts = [];
  params.forEach((value, key) => { parts.push(hashValue(key) + "=" + hashValue(value)); });
  return "#" + parts.join("&");
}

/**
 * A key or value of the hash, as URLSearchParams reads it back: percent-encoded, but "/" kept as it
 * is (a fragment may hold it: #viewer=wow/train&row=train/0 reads better than wow%2Ftrain) and
 * spaces as "+" (a "+" itself is %2B). Links written with %2F still read the same.
 * @param {string} text
 * @returns {string}
 */
export function hashValue(text) {
  return encodeURIComponent(text).replace(/%2F/g, "/").replace(/%20/g, "+");
}

/* -- the view's changes, each back at the first page ------------------------------------------------ */

/**
 * Choose (or drop) a value of a label filter.
 * @param {ViewState} state
 * @param {string} name
 * @param {string} value
 * @param {boolean} on
 */
export function toggleValue(state, name, value, on) {
  const chosen = (state.facets[name] || []).filter((v) => v !== value);
  if (on) { chosen.push(value); }
  if (chosen.length) { state.facets[name] = chosen; } else { delete state.facets[name]; }
  state.page = 0;
}

/**
 * Set (or drop, when both ends are null) a range filter.
 * @param {ViewState} state
 * @param {string} name
 * @param {Array<number | null>} range
 */
export function setRange(state, name, range) {
  if (range[0] === null && range[1] === null) { delete state.ranges[name]; } else { state.ranges[name] = range; }
  state.page = 0;
}

/**
 * Sort by a column: ascending, or the other way when it is already sorted by.
 * @param {ViewState} state
 * @param {string} name
 */
export function sortBy(state, name) {
  if (state.sort === name) {
    state.desc = !state.desc;
  } else {
    state.sort = name;
    state.desc = false;
  }
  state.page = 0;
}

/**
 * The view of another level of the same split: the search, the filters and the sort stay (where the
 * level has their columns), the rest starts again.
 * @param {ViewState} state
 * @param {string} level
 * @returns {Partial<ViewState> & {split: string}}
 */
export function atLevel(state, level) {
  return { split: state.split, level, q: state.q, facets: state.facets, ranges: state.ranges, sort: state.sort,
    desc: state.desc };
}
