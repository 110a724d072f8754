/* The viewers of a page: one per holder (.atlas-viewer) whose section's data block
 * (<script type="application/json" class="atlas-explorer-data">, "viewer") lists splits. Loaded by
 * _static/viewer.js, which keeps pages opened from disk to a note. */

import { Viewer } from "./app.js";
import { readHash } from "./url-state.js";

/** @type {Viewer[]} */
const viewers = [];

function followHash() {
  const state = readHash(window.location.hash);
  if (!state) {
    return;
  }
  for (let i = 0; i < viewers.length; i += 1) {
    if (viewers[i].ownHash === window.location.hash) {
      return; // written by the viewer itself
    }
    if (viewers[i].findSplit(state.split) !== -1) {
      viewers[i].go(state, true);
      return;
    }
  }
}

/**
 * Start every viewer of the page.
 * @param {string} siteRoot the site's root, ending in "/"
 */
export function setup(siteRoot) {
  const blocks = document.querySelectorAll("script.atlas-explorer-data");
  for (let i = 0; i < blocks.length; i += 1) {
    const section = blocks[i].parentNode;
    const holder = section ? /** @type {Element} */ (section).querySelector(".atlas-viewer") : null;
    /** @type {unknown} */
    let splits;
    try {
      splits = JSON.parse(blocks[i].textContent || "null").viewer;
    } catch (error) {
      continue;
    }
    if (!(holder instanceof HTMLElement) || !Array.isArray(splits) || !splits.length) {
      continue;
    }
    const viewer = new Viewer(holder, splits, siteRoot);
    viewer.start();
    viewers.push(viewer);
  }
  followHash();
  window.addEventListener("hashchange", followHash);
  document.documentElement.setAttribute("data-atlas-viewers", String(viewers.length));
}
