/* A label cell of the grid as the chapters show labels: each value a badge with the class the atlas's
 * renderers give it (atlas-badge-begin-hallucination for BEGIN's Hallucination), so that the rendering
 * stylesheet (_static/atlas-render.css, utils.book.render.stylesheet_css) colours it as in the chapters. */

import { make } from "./dom.js";

/**
 * A class name's token of a text, as utils/book/render/_html.py's _css_token writes it.
 * @param {string} value
 * @returns {string}
 */
export function cssToken(value) {
  return String(value).toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "x";
}

/**
 * The badge class of a value of a label column: the column's first word, then the value
 * ("BEGIN class (normalised)", "Partial Hallucination" -> atlas-badge-begin-partial-hallucination).
 * @param {string} column
 * @param {string} value
 * @returns {string}
 */
export function badgeClass(column, value) {
  return "atlas-badge atlas-badge-" + cssToken(column.split(" ")[0]) + "-" + cssToken(value);
}

/**
 * Fill a grid cell with a label column's values as badges (as text: a value is never markup).
 * @param {HTMLElement} td
 * @param {string} column
 * @param {unknown} value a label or a list of labels
 */
export function labelBadges(td, column, value) {
  const values = Array.isArray(value) ? value : value === null || value === undefined || value === "" ? [] : [value];
  const holder = make("span", "atlas-viewer-badges"); // one child of the cell: a phone's card lays cells out in two columns
  values.forEach((item, k) => {
    if (k) { holder.appendChild(make("span", "atlas-sr", ", ")); } // read and copied as "a, b", as the grid wrote them
    holder.appendChild(make("span", badgeClass(column, String(item)), String(item)));
  });
  if (values.length) { td.appendChild(holder); } // else the cell stays empty (a phone's card leaves it out)
}
