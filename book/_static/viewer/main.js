/* The viewers of a page: one per holder (.atlas-viewer) whose section's data block
 * (<script type="application/json" class="atlas-viewer-data">, "viewer") lists splits. Loaded by
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
      if (viewers[i].compact) { // a link to a chapter's viewer (as the book wrote them before): the viewer page
        window.location.replace(viewers[i].pageUrl + window.location.hash);
      } else {
        viewers[i].go(state, true);
      }
      return;
    }
  }
}

/**
 * The viewers of a viewer page (book/viewer/<dataset>.md): a holder naming its datasets
 * (data-datasets="wow wow_kilt") shows their splits, as the build's index lists them.
 * @param {string} siteRoot
 * @returns {Promise<void>}
 */
function setupPages(siteRoot) {
  const holders = Array.from(document.querySelectorAll(".atlas-viewer[data-datasets]"));
  if (!holders.length) {
    return Promise.resolve();
  }
  return fetch(siteRoot + "_viewer/index.json").then((response) => {
    if (!response.ok) {
      throw new Error("HTTP " + response.status);
    }
    return response.json();
  }).then((index) => {
    const all = index && Array.isArray(index.splits) ? index.splits : [];
    holders.forEach((holder) => {
      const wanted = (holder.getAttribute("data-datasets") || "").split(/\s+/);
      const splits = all.filter((/** @type {{dataset: string}} */ split) => wanted.indexOf(split.dataset) !== -1);
      if (holder instanceof HTMLElement && splits.length) {
        const viewer = new Viewer(holder, splits, siteRoot);
        viewer.start();
        viewers.push(viewer);
      } else if (holder instanceof HTMLElement) {
        holder.hidden = false;
        holder.textContent = "This build of the book wrote no rows of this dataset (its chapter writes them when it runs).";
        holder.setAttribute("data-viewer-state", "empty");
      }
    });
  }, (error) => {
    holders.forEach((holder) => {
      if (holder instanceof HTMLElement) {
        holder.hidden = false;
        holder.textContent = "The list of the viewer's splits could not be loaded (" + error.message + ").";
        holder.setAttribute("data-viewer-state", "error");
      }
    });
  });
}

/**
 * Start every viewer of the page.
 * @param {string} siteRoot the site's root, ending in "/"
 * @returns {Promise<void>}
 */
export function setup(siteRoot) {
  if (window.self !== window.top) { // embedded (the viewer's iframe snippet): the rows without the book around them
    document.documentElement.setAttribute("data-atlas-embedded", "");
  }
  const blocks = document.querySelectorAll("script.atlas-viewer-data");
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
    if (!(holder instanceof HTMLElement) || holder.hasAttribute("data-datasets") || !Array.isArray(splits) || !splits.length) {
      continue;
    }
    const viewer = new Viewer(holder, splits, siteRoot);
    viewer.start();
    viewers.push(viewer);
  }
  return setupPages(siteRoot).then(() => {
    followHash();
    // a viewer page the address does not open at shows its first split's dialogues (the page is for them)
    viewers.forEach((viewer) => {
      if (viewer.holder.hasAttribute("data-datasets") && viewer.state === null &&
          viewer.holder.getAttribute("data-viewer-state") === "closed") {
        viewer.go({ split: viewer.splitKey(viewer.splits[0]), level: "dialogues" });
      }
    });
    window.addEventListener("hashchange", followHash);
    document.documentElement.setAttribute("data-atlas-viewers", String(viewers.length));
  });
}
