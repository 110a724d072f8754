/* Downloads of a level's rows as CSV: every row of the split at the level on screen, or the rows
 * that match the search and filters; the columns of the grid with every value as the files hold it
 * (numbers in full, lists as JSON). A paged column (its values fetched only for the rows on screen)
 * is left out, and the box says so. */

import { button, make } from "./dom.js";
import { cell } from "./data.js";
import { csvParts, fmt } from "./text.js";

/** @typedef {import("./data.js").Column} Column */

/**
 * @typedef {object} DownloadOptions
 * @property {string} file the file's name, without ".csv"
 * @property {Column[]} columns
 * @property {number} rows the level's rows
 * @property {() => Uint32Array} matches the rows that match, in the grid's order
 * @property {string} level
 */

/**
 * @param {Column[]} columns
 * @param {ArrayLike<number>} rows
 * @returns {Blob}
 */
export function levelCsv(columns, rows) {
  const kept = columns.filter((column) => !column.lazy);
  return new Blob(csvParts(kept.map((column) => column.name), rows, (row, k) => cell(kept[k], row)), { type: "text/csv" });
}

/**
 * @param {Blob} blob
 * @param {string} name
 */
function save(blob, name) {
  const link = make("a");
  const url = URL.createObjectURL(blob);
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => { URL.revokeObjectURL(url); }, 60000);
}

/**
 * The download box of a level.
 * @param {DownloadOptions} options
 * @returns {HTMLElement}
 */
export function downloadBox(options) {
  const box = make("div", "atlas-viewer-downloads");
  box.appendChild(make("span", "atlas-viewer-downloadlabel", "Download as CSV: "));
  const all = button("every " + options.level + " row of the split (" + fmt(options.rows) + ")", "atlas-viewer-download-split");
  const matching = button("the rows that match", "atlas-viewer-download-matches");
  all.addEventListener("click", () => {
    const every = new Uint32Array(options.rows);
    for (let i = 0; i < every.length; i += 1) { every[i] = i; }
    save(levelCsv(options.columns, every), options.file + ".csv");
  });
  matching.addEventListener("click", () => {
    save(levelCsv(options.columns, options.matches()), options.file + "-matching.csv");
  });
  box.appendChild(all);
  box.appendChild(document.createTextNode(" "));
  box.appendChild(matching);
  const left = options.columns.filter((column) => column.lazy).map((column) => column.name);
  if (left.length) {
    box.appendChild(make("span", "atlas-viewer-note", " Left out (too many distinct values to fetch here; the SQL " +
      "console leaves them out too): " + left.join(", ") + "."));
  }
  return box;
}
