/* A region that scrolls sideways, reachable and scrollable by keyboard (a focusable, named region),
 * which says so when its content is wider than it: a shadow at the edge it scrolls towards and a
 * note "scroll sideways". A function returning its element, with show(content) to put another
 * content in place of the one shown (a grid drawn again). */

import { make } from "./dom.js";

/**
 * @param {HTMLElement} content
 * @param {string} name
 * @returns {HTMLElement & {show: (content: HTMLElement) => void}}
 */
export function scroller(content, name) {
  const outer = make("div", "atlas-viewer-scrollbox");
  const box = make("div", "atlas-viewer-scroll");
  box.tabIndex = 0;
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", name);
  box.appendChild(content);
  const hint = make("div", "atlas-viewer-scrollhint", "\u21c6 wider than the screen: scroll sideways");
  hint.hidden = true;
  outer.appendChild(hint);
  outer.appendChild(box);
  const update = () => {
    const more = box.scrollWidth - box.clientWidth > 2;
    hint.hidden = !more;
    outer.setAttribute("data-overflow", !more ? "none" : box.scrollLeft <= 1 ? "right"
      : box.scrollLeft + box.clientWidth >= box.scrollWidth - 1 ? "left" : "both");
  };
  box.addEventListener("scroll", update, { passive: true });
  const watch = typeof ResizeObserver === "function" ? new ResizeObserver(update) : null;
  if (watch) {
    watch.observe(box);
    watch.observe(content);
  }
  let shown = content;
  /** @param {HTMLElement} next */
  const show = (next) => {
    if (watch) { watch.unobserve(shown); }
    shown.replaceWith(next);
    shown = next;
    if (watch) { watch.observe(next); }
  };
  return Object.assign(outer, { show });
}
