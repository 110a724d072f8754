/* The line of controls above the rows: which split, which level ("Rows"), "Open the viewer" (until
 * it is open) and the level's search line (search-bar.js, set once a level is loaded). A function
 * returning its element. */

import { button, labelled, make } from "./dom.js";
import { LEVELS } from "./url-state.js";

/** @typedef {import("./store.js").SplitEntry} SplitEntry */

/**
 * @typedef {object} BarOptions
 * @property {SplitEntry[]} splits
 * @property {boolean} compact a chapter's compact view (it opens itself: no open button)
 * @property {(split: number, level: string) => void} onOpen
 * @property {(split: number) => void} onSplit
 * @property {(level: string) => void} onLevel
 */

/**
 * @typedef {HTMLElement & {
 *   show: (split: number, level: string) => void,
 *   opened: () => void,
 *   setSearch: (row: HTMLElement) => void,
 * }} SplitBar
 */

/**
 * @param {BarOptions} options
 * @returns {SplitBar}
 */
export function splitBar(options) {
  const bar = make("div", "atlas-viewer-bar-top");
  const splitSelect = make("select", "atlas-viewer-split");
  options.splits.forEach((split, i) => {
    const option = make("option", null, split.label + " (" + split.dataset + ")");
    option.value = String(i);
    splitSelect.appendChild(option);
  });
  const levelSelect = make("select", "atlas-viewer-level");
  LEVELS.forEach((level) => {
    const option = make("option", null, level);
    option.value = level;
    levelSelect.appendChild(option);
  });
  const openButton = button("Open the viewer", "atlas-viewer-open");
  bar.appendChild(labelled("Split", splitSelect));
  bar.appendChild(labelled("Rows", levelSelect));
  if (!options.compact) {
    bar.appendChild(openButton);
  }
  /* the search, the count and the link: one line with the split's controls */
  /** @type {HTMLElement} */
  let searchRow = make("div", "atlas-viewer-searchrow");
  bar.appendChild(searchRow);
  openButton.addEventListener("click", () => { options.onOpen(Number(splitSelect.value), levelSelect.value || "dialogues"); });
  splitSelect.addEventListener("change", () => { options.onSplit(Number(splitSelect.value)); });
  levelSelect.addEventListener("change", () => { options.onLevel(levelSelect.value); });
  return Object.assign(bar, {
    /** @param {number} split @param {string} level */
    show: (split, level) => {
      splitSelect.value = String(split);
      levelSelect.value = level;
    },
    opened: () => { openButton.hidden = true; },
    /** @param {HTMLElement} row */
    setSearch: (row) => {
      searchRow.replaceWith(row);
      searchRow = row;
    },
  });
}
