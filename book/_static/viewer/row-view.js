/* The open row: the dialogue holding it, as the atlas renders it, in a region below the grid, with
 * "close" and "pin to compare" (compare.js shows a pinned one beside it). rowPane returns the region,
 * rowView the open dialogue's element in it; rowHolding finds the row of an id. */

import { pinnedPane, sideBySide } from "./compare.js";
import { searchableColumns } from "./columns.js";
import { cell, cellLater } from "./data.js";
import { button, clear, make } from "./dom.js";
import { codesHolding } from "./filters.js";

/** @typedef {import("./data.js").Codes} Codes */
/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./store.js").SplitEntry} SplitEntry */

/**
 * The row whose id is ``id``, else the first row a searched column of which holds it (a record a row
 * groups, a KILT example), else -1.
 * @param {LevelData} data
 * @param {string} id
 * @returns {number}
 */
export function rowHolding(data, id) {
  const ids = data.columns[data.info.id];
  let at = -1;
  const code = ids.dict && ids.codes ? ids.dict.indexOf(id) : -1;
  for (let i = 0; code !== -1 && ids.codes && i < data.rows && at === -1; i += 1) {
    if (ids.codes[i] === code) { at = i; }
  }
  if (at === -1) {
    const needle = String(id).toLowerCase();
    /** @type {Array<[Uint8Array, Codes]>} */
    const hits = [];
    searchableColumns(data).forEach((column) => {
      const found = codesHolding(column, needle);
      if (found && column.codes) { hits.push([found, column.codes]); }
    });
    for (let j = 0; j < data.rows && at === -1 && hits.length; j += 1) {
      for (let c = 0; c < hits.length; c += 1) {
        if (hits[c][0][hits[c][1][j]]) { at = j; break; }
      }
    }
  }
  return at;
}

/**
 * @typedef {object} RowOptions
 * @property {string} title
 * @property {string} rendering the dialogue's HTML, rendered and escaped by the atlas's renderers
 * @property {() => void} onClose
 * @property {() => void} onPin
 */

/**
 * @param {RowOptions} options
 * @returns {HTMLElement}
 */
export function rowView(options) {
  const current = make("div", "atlas-viewer-current");
  const head = make("div", "atlas-viewer-detail-head");
  head.appendChild(make("strong", null, options.title));
  const pin = button("pin to compare", "atlas-viewer-pin");
  pin.title = "keep this dialogue on screen, beside the next one you open";
  const close = button("close", "atlas-viewer-close");
  close.addEventListener("click", options.onClose);
  head.appendChild(close);
  head.appendChild(pin);
  current.appendChild(head);
  const view = make("div", "atlas-viewer-rendering");
  const rendering = options.rendering;
  view.innerHTML = rendering; // rendered and escaped by the atlas's renderers, joined from its fragments
  current.appendChild(view);
  pin.addEventListener("click", options.onPin);
  return current;
}

/**
 * @typedef {object} PaneOptions
 * @property {LevelData} data
 * @property {SplitEntry} split
 * @property {(dialogue: number) => Promise<string>} rendering a dialogue's (its position in the split) rendering
 * @property {{pane: HTMLElement | null}} pinned the pinned dialogue, kept across the viewer's views
 * @property {HTMLElement} holder the viewer (a row closed by keyboard gives the focus back to its grid row)
 * @property {(id: string | null) => void} onRow a row opened (its id) or closed (null)
 * @property {(id: string | null) => void} onPin a row pinned (its id) or unpinned (null)
 */

/**
 * @typedef {HTMLElement & {
 *   open: (row: number, focus?: boolean) => Promise<void>,
 *   openId: (id: string) => Promise<void>,
 *   pin: () => void,
 *   restore: (row: string | null, pin: string | null) => Promise<void>,
 * }} RowPane
 */

/**
 * The region of the open row (named by the record it shows), hidden until a row opens: open(row,
 * focus) opens a row (``focus``: opened by keyboard, the focus goes to the record and back to its row
 * when it is closed), openId(id) the row of an id (or holding it), pin() pins the open dialogue: it
 * stays beside the next one opened; restore(row, pin) opens a view's (a link's) pinned row and open row.
 * @param {PaneOptions} options
 * @returns {RowPane}
 */
export function rowPane(options) {
  const { data, split, pinned } = options;
  const region = make("div", "atlas-viewer-detail");
  region.setAttribute("role", "region");
  region.hidden = true;
  /** @param {number} rowIndex @param {boolean} [focus] @returns {Promise<void>} */
  const open = (rowIndex, focus = false) => {
    const id = String(cell(data.columns[data.info.id], rowIndex));
    options.onRow(id);
    const title = split.label + ": " + data.info.id + " " + id;
    return cellLater(data.columns._dialogue, rowIndex).then((dialogue) => options.rendering(Number(dialogue)))
      .then((rendering) => {
        const view = rowView({ title, rendering, onPin: () => { pin(); }, onClose: () => {
          region.hidden = true;
          options.onRow(null);
          if (focus) { // back where the keyboard reader opened it, when that row is still on the page
            const row = options.holder.querySelector(".atlas-viewer-grid tbody tr[data-id='" + CSS.escape(id) + "']");
            if (row instanceof HTMLElement) { row.focus(); }
          }
        } });
        clear(region);
        region.hidden = false;
        region.appendChild(view);
        sideBySide(region, pinned.pane);
        region.setAttribute("data-id", id);
        region.setAttribute("aria-label", title);
        if (focus) {
          region.tabIndex = -1; // focusable by script, not a stop of its own in the tab order
          region.scrollIntoView({ block: "start" });
          region.focus({ preventScroll: true });
        } else {
          region.scrollIntoView({ block: "nearest" });
        }
      });
  };
  /** @param {string} id @returns {Promise<void>} */
  const openId = (id) => {
    const at = rowHolding(data, id);
    if (at !== -1) {
      return open(at);
    }
    region.hidden = false;
    clear(region);
    region.appendChild(make("p", "atlas-viewer-note", "No row of " + split.label + " has the id " + id + "."));
    return Promise.resolve();
  };
  const pin = () => {
    const view = region.querySelector(".atlas-viewer-current .atlas-viewer-rendering");
    const id = region.getAttribute("data-id");
    if (!(view instanceof HTMLElement) || id === null) {
      return;
    }
    pinned.pane = pinnedPane(region.getAttribute("aria-label") || id, view, () => {
      pinned.pane = null;
      options.onPin(null);
      sideBySide(region, null);
    });
    options.onPin(id);
    sideBySide(region, pinned.pane);
  };
  /** @param {string | null} row @param {string | null} pinId @returns {Promise<void>} */
  const restore = (row, pinId) => {
    if (pinId) { // the pinned row first, then the open one beside it
      return openId(pinId).then(() => { pin(); return row !== null ? openId(row) : undefined; });
    }
    return row !== null ? openId(row) : Promise.resolve();
  };
  return Object.assign(region, { open, openId, pin, restore });
}
