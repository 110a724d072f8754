/* The embed snippet: an <iframe> whose address restores the view on screen, in a box to copy. */

import { button, make } from "./dom.js";

/**
 * The snippet of an iframe showing ``url`` (attribute values escaped: the address holds the reader's
 * search and a query).
 * @param {string} url
 * @param {string} title
 * @returns {string}
 */
export function embedSnippet(url, title) {
  /** @param {string} text */
  const attr = (text) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return '<iframe src="' + attr(url) + '" title="' + attr(title) + '" width="100%" height="720" ' +
    'style="border: 1px solid #ccc" loading="lazy"></iframe>';
}

/**
 * A box with the snippet of the view at ``url()`` (read when the box is opened or copied) and a
 * copy button.
 * @param {() => string} url
 * @param {() => string} title
 * @returns {HTMLElement & {refresh: () => void}}
 */
export function embedBox(url, title) {
  const box = make("div", "atlas-viewer-embed");
  const text = make("textarea", "atlas-viewer-embedtext");
  text.readOnly = true;
  text.rows = 3;
  text.setAttribute("aria-label", "HTML to embed this view in another page");
  const copy = button("copy", "atlas-viewer-embedcopy");
  const said = make("span", "atlas-viewer-note atlas-viewer-embedsaid");
  said.setAttribute("aria-live", "polite");
  const fill = () => { text.value = embedSnippet(url(), title()); };
  copy.addEventListener("click", () => {
    fill();
    text.select();
    const done = () => { said.textContent = "copied"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text.value).then(done, () => { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
  text.addEventListener("focus", () => { fill(); text.select(); });
  box.appendChild(make("span", "atlas-viewer-embedlabel", "Embed this view (an iframe of this page at these rows): "));
  box.appendChild(copy);
  box.appendChild(said);
  box.appendChild(text);
  fill();
  return Object.assign(box, { refresh: fill });
}
