/* The first page of a level, drawn while its other rows load: at full size a level's shards are tens
 * of megabytes, and a reader opening it at its first page (no search, filter or sort) needs only the
 * dictionaries and the first shard. Its sort buttons and rows wait for the whole level (sorting and
 * filtering read every row); the view drawn then shows the same rows. A function returning its
 * element. */

import { visibleColumns } from "./columns.js";
import { make } from "./dom.js";
import { grid } from "./grid.js";
import { scroller } from "./scroller.js";

/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./url-state.js").ViewState} ViewState */

/**
 * The rows ``state`` shows when they are among the first ``held`` rows of the level in file order
 * (no search, filter or sort), else null.
 * @param {ViewState} state
 * @param {number} perPage
 * @param {number} held
 * @returns {number[] | null}
 */
export function firstRowsShown(state, perPage, held) {
  const plain = !state.q && !state.sort && !Object.keys(state.facets).length && !Object.keys(state.ranges).length;
  const start = state.page * perPage;
  if (!plain || start + perPage > held) {
    return null;
  }
  return Array.from({ length: perPage }, (_, k) => start + k);
}

/**
 * The grid of ``rows`` (held), its sort buttons disabled and its rows opening nothing; drawn again
 * once the values of its lazy cells are fetched, while it is on the page.
 * @param {LevelData} data
 * @param {number[]} rows
 * @returns {HTMLElement}
 */
export function firstPage(data, rows) {
  const box = scroller(make("table", "atlas-viewer-grid"), "The rows");
  box.setAttribute("data-first-page", "");
  const draw = () => {
    const table = grid({ data, columns: visibleColumns(data), rows, sort: null, desc: false,
      onSort: () => {}, onOpen: () => {}, onError: () => {},
      onFetched: () => { if (box.isConnected) { draw(); } } });
    table.querySelectorAll("th button").forEach((sortButton) => {
      /** @type {HTMLButtonElement} */ (sortButton).disabled = true;
      /** @type {HTMLButtonElement} */ (sortButton).title = "sorting waits for every row";
    });
    box.show(table);
  };
  draw();
  return box;
}

/**
 * Show the first page in ``body`` when ``state`` shows rows among the ``held`` ones; true if so.
 * @param {HTMLElement} body the viewer's body (built again, whole, once the level is in)
 * @param {LevelData} data
 * @param {ViewState} state
 * @param {number} perPage
 * @param {number} held
 * @returns {boolean}
 */
export function showFirstPage(body, data, state, perPage, held) {
  const rows = firstRowsShown(state, perPage, held);
  if (rows) {
    body.replaceChildren(firstPage(data, rows));
    body.hidden = false;
  }
  return rows !== null;
}
