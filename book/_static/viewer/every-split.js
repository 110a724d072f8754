/* The search of the split on screen run over every split of its dataset, at the same level: how many
 * rows of each split match, each a button that opens that split at the search. A function returning
 * its element (everySplit), shown in a slot of the viewer's (everySlot); the splits are loaded one
 * after another, and each let go once counted. */

import { button, clear, make } from "./dom.js";
import { computeMasks, markFacets } from "./filters.js";
import { fmt } from "./text.js";
import { fullState } from "./url-state.js";

/** @typedef {import("./store.js").SplitEntry} SplitEntry */
/** @typedef {import("./data.js").LevelData} LevelData */

/* A search stops testing further words in one split after this long. */
const BUDGET_MS = 1500;

/**
 * How many rows of a loaded level the search ``q`` matches (the viewer's own search: every string
 * column but a lazy one).
 * @param {LevelData} data
 * @param {string} q
 * @param {string} split dataset/split
 * @returns {number}
 */
export function searchCount(data, q, split) {
  const searched = Object.keys(data.columns).map((name) => data.columns[name])
    .filter((column) => column.stored !== "number" && !column.lazy);
  const base = new Uint8Array(data.rows);
  const masks = computeMasks(data.columns, data.rows, fullState({ split, level: data.level, q }), searched, base, BUDGET_MS);
  markFacets(masks, data.rows);
  let n = 0;
  for (let i = 0; i < base.length; i += 1) { n += base[i]; }
  return n;
}

/**
 * @typedef {object} EveryOptions
 * @property {SplitEntry[]} splits the dataset's splits
 * @property {string} level
 * @property {string} q
 * @property {import("./store.js").SplitStore} store where a split's level is fetched, and let go once counted
 * @property {() => SplitEntry | null} shown the split on screen (its level is kept)
 * @property {(split: SplitEntry) => void} open show that split at the search
 */

/**
 * @param {EveryOptions} options
 * @returns {HTMLElement}
 */
export function everySplit(options) {
  const box = make("div", "atlas-viewer-every");
  const status = make("p", "atlas-viewer-note");
  status.setAttribute("role", "status");
  status.textContent = "Searching every split for \u201c" + options.q + "\u201d\u2026";
  box.appendChild(status);
  const list = make("ul", "atlas-viewer-everylist");
  box.appendChild(list);
  box.setAttribute("data-state", "running");
  /** @type {Promise<unknown>} */
  let chain = Promise.resolve();
  let total = 0;
  options.splits.forEach((split) => {
    chain = chain.then(() => options.store.manifest(split)).then((manifest) =>
      (manifest.levels[options.level] ? options.store.load(split, options.level) : null)).then((data) => {
      const item = make("li");
      item.setAttribute("data-split", split.dataset + "/" + split.split);
      if (!data) {
        item.textContent = split.label + ": no " + options.level + " rows";
      } else {
        const n = searchCount(data, options.q, split.dataset + "/" + split.split);
        total += n;
        item.setAttribute("data-matches", String(n));
        const go = button(split.label + ": " + fmt(n) + " of " + fmt(data.rows) + " " + options.level + " rows", "atlas-viewer-everygo");
        go.disabled = n === 0;
        go.addEventListener("click", () => { options.open(split); });
        item.appendChild(go);
        if (split !== options.shown()) { delete options.store.entry(split).levels[options.level]; }
      }
      list.appendChild(item);
    }, (error) => {
      list.appendChild(make("li", null, split.label + ": could not be loaded (" + error.message + ")"));
    });
  });
  chain.then(() => {
    status.textContent = "\u201c" + options.q + "\u201d in every split of " + (options.splits[0] ? options.splits[0].dataset : "") +
      ": " + fmt(total) + " " + options.level + " rows.";
    box.setAttribute("data-state", "done");
    box.setAttribute("data-matches", String(total));
  });
  return box;
}

/**
 * The slot of a search in every split, between the filters and the grid: run(level, q) shows the
 * counts of a search (in place of the last one's).
 * @param {Omit<EveryOptions, "level" | "q" | "open"> & {open: (split: SplitEntry, level: string, q: string) => void}} options
 * @returns {HTMLElement & {run: (level: string, q: string) => void}}
 */
export function everySlot(options) {
  const slot = make("div", "atlas-viewer-everyslot");
  /** @param {string} level @param {string} q */
  const run = (level, q) => {
    clear(slot);
    slot.appendChild(everySplit({ ...options, level, q, open: (split) => { options.open(split, level, q); } }));
  };
  return Object.assign(slot, { run });
}
