/* The filters of a level: a chip per value of each label column (with how many matching rows hold
 * it) and the two ends of each number column's range. A function returning its element, with
 * update(masks, facets) to count and tick the chips after a refresh and showRange(name, range) to
 * show a range set elsewhere (a histogram's bar). */

import { labelled, make } from "./dom.js";
import { FACET_LIMIT } from "./columns.js";
import { chipCounts, codeCounts, valueCounts } from "./filters.js";
import { fmt } from "./text.js";

/** @typedef {import("./data.js").Column} Column */
/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./filters.js").Masks} Masks */

/**
 * @typedef {object} FacetOptions
 * @property {LevelData} data
 * @property {Column[]} columns the columns shown
 * @property {Record<string, string[]>} facets the values chosen, per column
 * @property {Record<string, Array<number | null>>} ranges
 * @property {(name: string, value: string, on: boolean) => void} onToggle
 * @property {(name: string, range: Array<number | null>) => void} onRange
 */

/**
 * @typedef {HTMLElement & {
 *   update: (masks: Masks, facets: Record<string, string[]>) => void,
 *   showRange: (name: string, range: Array<number | null>) => void,
 * }} FacetBox
 */

/**
 * @param {FacetOptions} options
 * @returns {FacetBox}
 */
export function facetBox(options) {
  const { data, facets, ranges } = options;
  const box = make("div", "atlas-viewer-filterbox");
  /** @type {Array<{column: string, value: string, count: HTMLElement, chip: HTMLElement, input: HTMLInputElement}>} */
  const chips = [];
  options.columns.forEach((column) => {
    if (column.kind === "label" || column.kind === "labels") {
      const totals = valueCounts(column, codeCounts(column, null, data.rows));
      const names = Object.keys(totals);
      if (!names.length || names.length > FACET_LIMIT) {
        return;
      }
      names.sort((a, b) => totals[b] - totals[a] || (a < b ? -1 : a > b ? 1 : 0));
      const group = make("fieldset", "atlas-viewer-facet");
      group.setAttribute("data-column", column.name);
      group.appendChild(make("legend", null, column.name + (column.kind === "labels" ? " (any of a row's labels)" : "")));
      names.forEach((value) => {
        const chip = make("label", "atlas-viewer-chip");
        chip.setAttribute("data-value", value);
        const input = make("input");
        input.type = "checkbox";
        input.checked = (facets[column.name] || []).indexOf(value) !== -1;
        const count = make("span", "atlas-viewer-chip-count");
        chip.appendChild(input);
        chip.appendChild(make("span", null, value));
        chip.appendChild(count);
        group.appendChild(chip);
        input.addEventListener("change", () => { options.onToggle(column.name, value, input.checked); });
        chips.push({ column: column.name, value, count, chip, input });
      });
      box.appendChild(group);
    } else if (column.kind === "number") {
      const group = make("fieldset", "atlas-viewer-range");
      group.setAttribute("data-column", column.name);
      group.appendChild(make("legend", null, column.name));
      const current = ranges[column.name] || [null, null];
      ["from", "to"].forEach((end, k) => {
        const input = make("input", "atlas-viewer-range-" + end);
        input.type = "number";
        input.step = "any";
        input.value = current[k] === null ? "" : String(current[k]);
        group.appendChild(labelled(end, input));
        input.addEventListener("change", () => {
          const range = (ranges[column.name] || [null, null]).slice();
          range[k] = input.value === "" ? null : Number(input.value);
          options.onRange(column.name, range);
        });
      });
      box.appendChild(group);
    }
  });
  /** @type {FacetBox["update"]} */
  const update = (masks, chosen) => {
    const names = Array.from(new Set(chips.map((chip) => chip.column)));
    const counts = chipCounts(data.columns, data.rows, masks, names);
    chips.forEach((chip) => {
      const perValue = counts[chip.column];
      const n = (perValue && perValue[chip.value]) || 0;
      chip.count.textContent = fmt(n);
      chip.chip.setAttribute("data-count", String(n));
      chip.chip.classList.toggle("atlas-viewer-chip-empty", n === 0);
      chip.input.checked = (chosen[chip.column] || []).indexOf(chip.value) !== -1;
    });
  };
  /** @type {FacetBox["showRange"]} */
  const showRange = (name, range) => {
    box.querySelectorAll("fieldset.atlas-viewer-range").forEach((group) => {
      if (group.getAttribute("data-column") === name) {
        group.querySelectorAll("input").forEach((input, k) => { input.value = range[k] === null ? "" : String(range[k]); });
      }
    });
  };
  return Object.assign(box, { update, showRange });
}
