/* What a level says about its rows ("about" and the dataset's note), and the panel the reader opens
 * above the grid: those, how the search reads, the filters (facets.js), the downloads (download.js)
 * and the embedding snippet (embed.js). Functions returning their elements. */

import { downloadBox } from "./download.js";
import { embedBox } from "./embed.js";
import { make } from "./dom.js";
import { SEARCH_CAP, fmt } from "./text.js";

/** @typedef {import("./data.js").Column} Column */
/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./data.js").Manifest} Manifest */
/** @typedef {import("./store.js").SplitEntry} SplitEntry */

/**
 * The sentence counting a split's rows, and the dataset's note on them if any.
 * @param {Manifest} manifest
 * @param {SplitEntry} split
 * @returns {HTMLElement[]}
 */
export function aboutRows(manifest, split) {
  /** @param {string} level */
  const rowsOf = (level) => fmt(manifest.levels[level] ? manifest.levels[level].rows : 0);
  const about = make("p", "atlas-viewer-about", manifest.title + ", " + split.label + " (" + (manifest.kind || "data") +
    "): " + rowsOf("dialogues") + " dialogue rows, " + rowsOf("turns") + " turns, " + rowsOf("evidence") + " evidence rows.");
  return manifest.note ? [about, make("p", "atlas-viewer-note", manifest.note)] : [about];
}

/**
 * @typedef {object} ToolsOptions
 * @property {LevelData} data
 * @property {SplitEntry} split
 * @property {Column[]} columns the columns shown (and downloaded)
 * @property {HTMLElement} facets the filters (facets.js)
 * @property {() => Uint32Array} matches
 * @property {() => string} link the address of this view
 * @property {boolean} open
 * @property {(open: boolean) => void} onToggle
 */

/**
 * @param {ToolsOptions} options
 * @returns {HTMLDetailsElement & {embed: HTMLElement & {refresh: () => void}}}
 */
export function toolsPanel(options) {
  const { data, split } = options;
  const manifest = data.manifest;
  const tools = /** @type {HTMLDetailsElement & {embed: HTMLElement & {refresh: () => void}}} */ (
    make("details", "atlas-viewer-filters atlas-viewer-tools"));
  tools.appendChild(make("summary", null, "Filters, download, embed, and about these rows" +
    (manifest.kind ? " (" + manifest.kind + ")" : "")));
  aboutRows(manifest, split).forEach((element) => { tools.appendChild(element); });
  tools.appendChild(make("p", "atlas-viewer-note", "Search: every word must occur in a row, \"quoted text\" as written " +
    "(up to " + SEARCH_CAP + " characters); ids, label names and English glosses are searched too."));
  tools.appendChild(options.facets);
  tools.appendChild(downloadBox({
    file: split.dataset + "-" + split.split + "-" + data.level, columns: options.columns, rows: data.rows,
    matches: options.matches, level: data.level,
  }));
  tools.appendChild(tools.embed = embedBox(options.link, () => manifest.title + ", " + split.label + ": the data viewer"));
  tools.open = options.open;
  tools.addEventListener("toggle", () => { options.onToggle(tools.open); });
  return tools;
}
