/* The viewer's DOM helpers: dataset strings are only ever inserted as text. */

/**
 * A new element, with a class and a text (inserted as text, never as markup).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [className]
 * @param {unknown} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function make(tag, className, text) {
  const element = document.createElement(tag);
  if (className) {
    element.className = className;
  }
  if (text !== undefined && text !== null) {
    element.textContent = String(text);
  }
  return element;
}

/** @param {Element} element */
export function clear(element) {
  while (element.firstChild) {
    element.removeChild(element.firstChild);
  }
}

/**
 * @param {string} text
 * @param {string} [className]
 * @returns {HTMLButtonElement}
 */
export function button(text, className) {
  const b = make("button", className, text);
  b.type = "button";
  return b;
}

/**
 * A control with its visible label (the label element holds the control, so it names it).
 * @template {HTMLElement} T
 * @param {string} text
 * @param {T} control
 * @returns {HTMLLabelElement}
 */
export function labelled(text, control) {
  const label = make("label", "atlas-viewer-control", text + " ");
  label.appendChild(control);
  return label;
}

/**
 * Set attributes of ``element``, each value as a string.
 * @param {Element} element
 * @param {Record<string, string | number>} values
 */
export function attributes(element, values) {
  Object.keys(values).forEach((name) => { element.setAttribute(name, String(values[name])); });
}
