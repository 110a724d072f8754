/* The grid's pager: page numbers (the first, the last and those around the current page), previous
 * and next, and how many rows a page shows. A function returning its element; the viewer redraws it
 * on every refresh. */

import { button, labelled, make } from "./dom.js";
import { fmt } from "./text.js";

/* Rows per page a reader can choose (the first of a viewer page's is PAGE_SIZES[1]). */
export const PAGE_SIZES = [25, 100, 250, 1000];

/**
 * The page numbers to offer (from 0), with null for a gap: the first and last pages, and ``around``
 * pages on each side of the current one.
 * @param {number} page from 0
 * @param {number} pages at least 1
 * @param {number} [around]
 * @returns {Array<number | null>}
 */
export function pageNumbers(page, pages, around = 2) {
  /** @type {Array<number | null>} */
  const out = [];
  let last = -1;
  for (let p = 0; p < pages; p += 1) {
    if (p === 0 || p === pages - 1 || Math.abs(p - page) <= around) {
      if (last !== -1 && p - last > 1) { out.push(p - last === 2 ? last + 1 : null); }
      out.push(p);
      last = p;
    }
  }
  return out;
}

/**
 * @typedef {object} PagerOptions
 * @property {number} page from 0
 * @property {number} pages
 * @property {number} size rows per page
 * @property {number[]} [sizes] the choices of rows per page (none: not offered)
 * @property {(page: number) => void} onPage
 * @property {(size: number, page: number) => void} [onSize] ``page``: the page at that size holding the first row on
 * screen (it stays on screen)
 */

/**
 * @param {PagerOptions} options
 * @returns {HTMLElement}
 */
export function pager(options) {
  const { page, pages, size, onPage } = options;
  const nav = make("nav", "atlas-viewer-pager");
  nav.setAttribute("aria-label", "pages of rows");
  const prev = button("\u25c0", "atlas-viewer-prev");
  prev.setAttribute("aria-label", "previous page");
  prev.disabled = page === 0;
  prev.addEventListener("click", () => { onPage(page - 1); });
  nav.appendChild(prev);
  const list = make("span", "atlas-viewer-pages");
  pageNumbers(page, pages).forEach((p) => {
    if (p === null) {
      list.appendChild(make("span", "atlas-viewer-gap", "\u2026"));
      return;
    }
    const pick = button(fmt(p + 1), "atlas-viewer-pagenumber");
    pick.setAttribute("data-page", String(p + 1));
    pick.setAttribute("aria-label", "page " + (p + 1));
    if (p === page) { pick.setAttribute("aria-current", "page"); }
    pick.addEventListener("click", () => { onPage(p); });
    list.appendChild(pick);
  });
  nav.appendChild(list);
  const next = button("\u25b6", "atlas-viewer-next");
  next.setAttribute("aria-label", "next page");
  next.disabled = page >= pages - 1;
  next.addEventListener("click", () => { onPage(page + 1); });
  nav.appendChild(next);
  nav.appendChild(make("span", "atlas-viewer-page", "page " + fmt(page + 1) + " of " + fmt(pages)));
  const onSize = options.onSize;
  if (options.sizes && onSize) {
    const choose = make("select", "atlas-viewer-pagesize");
    const sizes = options.sizes.indexOf(size) === -1 ? options.sizes.concat([size]).sort((a, b) => a - b) : options.sizes;
    sizes.forEach((n) => {
      const option = make("option", null, fmt(n));
      option.value = String(n);
      choose.appendChild(option);
    });
    choose.value = String(size);
    choose.addEventListener("change", () => {
      const chosen = Number(choose.value);
      onSize(chosen, Math.floor((page * size) / chosen));
    });
    nav.appendChild(labelled("rows per page", choose));
  }
  return nav;
}
