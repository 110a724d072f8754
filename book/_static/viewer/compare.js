/* Two dialogues side by side: the reader pins the open one, then opens another; the pinned one stays
 * on the left (above it on a phone) until unpinned. */

import { button, make } from "./dom.js";

/**
 * The pinned dialogue: a copy of its rendering, with its title and an unpin button.
 * @param {string} title
 * @param {HTMLElement} rendering the open dialogue's rendering (copied)
 * @param {() => void} onUnpin
 * @returns {HTMLElement}
 */
export function pinnedPane(title, rendering, onUnpin) {
  const pane = make("section", "atlas-viewer-pinned");
  pane.setAttribute("aria-label", "pinned: " + title);
  pane.setAttribute("data-title", title);
  const head = make("div", "atlas-viewer-detail-head");
  head.appendChild(make("strong", null, "Pinned: " + title));
  const unpin = button("unpin", "atlas-viewer-unpin");
  unpin.addEventListener("click", onUnpin);
  head.appendChild(unpin);
  pane.appendChild(head);
  const copy = /** @type {HTMLElement} */ (rendering.cloneNode(true));
  copy.className = "atlas-viewer-pinned-rendering";
  copy.querySelectorAll("[id]").forEach((element) => { element.removeAttribute("id"); }); // the open one keeps its ids
  pane.appendChild(copy);
  return pane;
}

/**
 * Show ``pinned`` (or none) beside the open dialogue of ``detail``.
 * @param {HTMLElement} detail
 * @param {HTMLElement | null} pinned
 */
export function sideBySide(detail, pinned) {
  detail.querySelectorAll(":scope > .atlas-viewer-pinned").forEach((pane) => { if (pane !== pinned) { pane.remove(); } });
  if (pinned && pinned.parentNode !== detail) {
    detail.insertBefore(pinned, detail.firstChild);
  }
  detail.classList.toggle("atlas-viewer-compare", !!pinned);
}
