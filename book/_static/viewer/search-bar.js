/* The line of a level's search: the box, how many rows match, "Clear filters", "search every
 * split", the link to this view and, when a search was cut or stopped early, a note saying so.
 * A function returning its element (on the split's line of controls), with show(...) to say the
 * count and the search's limits after each refresh. */

import { button, labelled, make } from "./dom.js";
import { SEARCH_CAP, fmt } from "./text.js";

/**
 * @typedef {object} SearchOptions
 * @property {string} q the search shown
 * @property {string} dataset
 * @property {boolean} compact a chapter's compact view (no search in every split)
 * @property {(q: string, cut: boolean) => void} onSearch typed (after a pause), ``cut`` when longer than SEARCH_CAP
 * @property {() => void} onReset
 * @property {() => void} onEvery
 */

/**
 * @typedef {object} SearchShown
 * @property {number} count matching rows
 * @property {number} rows of the level
 * @property {string} level
 * @property {boolean} cut the search was cut to SEARCH_CAP characters
 * @property {number} stopped words tested before the time budget ran out (0: every word)
 * @property {number} words
 * @property {number} budget the search's time budget, in ms
 */

/**
 * @typedef {HTMLElement & {input: HTMLInputElement, link: HTMLAnchorElement, show: (shown: SearchShown) => void}} SearchBar
 */

/**
 * @param {SearchOptions} options
 * @returns {SearchBar}
 */
export function searchBar(options) {
  const row = make("div", "atlas-viewer-searchrow");
  const input = make("input", "atlas-viewer-search");
  input.type = "search";
  input.placeholder = 'words, ids, glosses, or "an exact phrase"';
  input.maxLength = SEARCH_CAP;
  input.value = options.q;
  row.appendChild(labelled("Search", input));
  const count = make("span", "atlas-viewer-count");
  count.setAttribute("aria-live", "polite");
  row.appendChild(count);
  const reset = button("Clear filters", "atlas-viewer-reset");
  row.appendChild(reset);
  const every = button("search every split", "atlas-viewer-every-run");
  every.title = "the search in every split of " + options.dataset + ", at this level";
  if (!options.compact) { row.appendChild(every); }
  // a compact view's link opens the viewer page at its rows
  const link = make("a", "atlas-viewer-link" + (options.compact ? " atlas-viewer-open-page" : ""),
    options.compact ? "open these rows in the data viewer" : "link to this view");
  row.appendChild(link);
  input.title = "up to " + SEARCH_CAP + " characters";
  // said next to the box when a search was cut or stopped early (see show)
  const note = make("span", "atlas-viewer-searchcap");
  row.appendChild(note);
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let typing;
  input.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      const cut = input.value.length > SEARCH_CAP; // set by a script, past the box's maxlength
      if (cut) {
        input.value = input.value.slice(0, SEARCH_CAP);
      }
      options.onSearch(input.value, cut);
    }, 150);
  });
  reset.addEventListener("click", () => {
    input.value = "";
    options.onReset();
  });
  every.addEventListener("click", () => { options.onEvery(); });
  /** @param {SearchShown} shown */
  const show = (shown) => {
    count.textContent = fmt(shown.count) + " of " + fmt(shown.rows) + " " + shown.level + " rows match";
    let text = "up to " + SEARCH_CAP + " characters";
    if (shown.cut) {
      text = "cut to its first " + SEARCH_CAP + " characters, the most a search reads";
    }
    if (shown.stopped) {
      text += "; stopped after " + shown.budget / 1000 + " s: the rows shown hold its first " +
        fmt(shown.stopped) + " of " + fmt(shown.words) + " words";
    }
    note.textContent = "(" + text + ")";
    note.hidden = !shown.cut && !shown.stopped;
  };
  return Object.assign(row, { input, link, show });
}
