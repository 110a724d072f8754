/* The grid: a page of the matching rows, a button per column header to sort by it, each cell's text
 * (cut at 160 characters, whole in its title) or a label's coloured badges. A function returning
 * its <table>; the viewer draws it again at each refresh. */

import { cell, ensureCells } from "./data.js";
import { button, make } from "./dom.js";
import { cssToken, labelBadges } from "./labels.js";
import { cellText } from "./text.js";

/** @typedef {import("./data.js").Column} Column */
/** @typedef {import("./data.js").LevelData} LevelData */

/**
 * @typedef {object} GridOptions
 * @property {LevelData} data
 * @property {Column[]} columns the columns shown, in order
 * @property {number[]} rows the rows of the page, in order
 * @property {string | null} sort the column sorted by
 * @property {boolean} desc
 * @property {(name: string) => void} onSort a header's button pressed
 * @property {(row: number, byKeyboard: boolean) => void} onOpen a row clicked, or Enter pressed on it
 * @property {() => void} onFetched the values of a lazy column's cells on the page fetched: draw it again
 * @property {(column: Column, error: Error) => void} onError
 */

/**
 * @param {GridOptions} options
 * @returns {HTMLTableElement & {waiting: number}} ``waiting``: the lazy columns whose cells are being fetched
 */
export function grid(options) {
  const { data, columns, rows, sort, desc } = options;
  const table = /** @type {HTMLTableElement & {waiting: number}} */ (make("table", "atlas-viewer-grid"));
  const head = make("thead");
  const headRow = make("tr");
  columns.forEach((column) => {
    const th = make("th");
    th.setAttribute("data-column", column.name);
    const sortButton = button(column.name, "atlas-viewer-sort");
    const sorted = sort === column.name;
    th.setAttribute("aria-sort", sorted ? (desc ? "descending" : "ascending") : "none");
    if (sorted) { sortButton.textContent = column.name + (desc ? " \u25bc" : " \u25b2"); }
    sortButton.title = "sort by " + column.name;
    sortButton.addEventListener("click", () => { options.onSort(column.name); });
    th.appendChild(sortButton);
    headRow.appendChild(th);
  });
  head.appendChild(headRow);
  table.appendChild(head);
  const tbody = make("tbody");
  const idColumn = data.columns[data.info.id];
  /** @type {Column[]} */
  const waiting = [];
  rows.forEach((rowIndex) => {
    const tr = make("tr", "atlas-viewer-row");
    tr.tabIndex = 0;
    tr.setAttribute("data-row", String(rowIndex));
    tr.setAttribute("data-id", String(cell(idColumn, rowIndex)));
    columns.forEach((column) => {
      const value = cell(column, rowIndex);
      if (value === undefined && waiting.indexOf(column) === -1) { waiting.push(column); }
      const text = value === undefined ? "\u2026" : cellText(value);
      const badges = (column.kind === "label" || column.kind === "labels") && value !== undefined;
      const td = make("td", "atlas-viewer-" + column.kind, badges ? null
        : text.length > 160 ? text.slice(0, 159) + "\u2026" : text);
      if (badges) { labelBadges(td, column.name, value); } // coloured as in the chapters
      td.setAttribute("data-label", column.name); // a phone's card names each value by its column
      if (column.name === "role" && typeof value === "string") { tr.setAttribute("data-role", cssToken(value)); }
      if (text.length > 160) { td.title = text; }
      tr.appendChild(td);
    });
    tr.addEventListener("click", () => { options.onOpen(rowIndex, false); });
    // by keyboard, the opened record takes the focus (it is drawn below the page's rows and the pager,
    // where a keyboard reader would otherwise have to tab to it)
    tr.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { options.onOpen(rowIndex, true); event.preventDefault(); }
    });
    tbody.appendChild(tr);
  });
  table.appendChild(tbody);
  table.waiting = waiting.length;
  // the codes of lazy columns and the values of paged ones for these rows: fetched, then the page
  // drawn again
  columns.filter((column) => column.lazy).forEach((column) => {
    ensureCells(column, rows).then((fetched) => { if (fetched) { options.onFetched(); } }, (error) => { options.onError(column, error); });
  });
  return table;
}
