// Filters, search and sort over columns of codes (book/_static/viewer/filters.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  chipCounts, codeCounts, computeMasks, keepKnownColumns, markFacets, sortRows, valueCounts,
} from "../../book/_static/viewer/filters.js";
import { fullState } from "../../book/_static/viewer/url-state.js";

/** A held column from its values per row (as utils/book/viewer_files.py writes them: sorted distinct values). */
function column(name, kind, values) {
  const present = values.filter((v) => v !== null);
  const keyOf = (v) => (Array.isArray(v) ? v.join(", ") : v);
  const dict = [...new Map(present.map((v) => [JSON.stringify(v), v])).values()]
    .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const codes = Uint8Array.from(values.map((v) => (v === null ? dict.length : dict.findIndex((d) => JSON.stringify(d) === JSON.stringify(v)))));
  return { name, kind, stored: kind === "id" ? "text" : kind, size: dict.length, dict, codes, lazy: false, lower: null };
}

const rows = {
  id: column("id", "id", ["a", "b", "c", "d", "e"]),
  model: column("model", "label", ["t5", "gpt2", "t5", "__proto__", null]),
  tags: column("tags", "labels", [["x"], ["x", "y"], [], ["constructor"], ["y"]]),
  steps: column("steps", "number", [1, 4, 5, 2, null]),
  text: column("text", "text", ["Jazz band", "rock", "JAZZ  age", "pop", "folk"]),
};

function run(partial) {
  const state = fullState({ split: "d/s", ...partial });
  const masks = computeMasks(rows, 5, state, [rows.id, rows.model, rows.tags, rows.text], new Uint8Array(5), 1500);
  markFacets(masks, 5);
  return { masks, matches: Array.from(sortRows(masks.base, null, 0, false)) };
}

test("search, ranges and label filters combine; prototype names are labels like others", () => {
  assert.deepEqual(run({ q: "jazz" }).matches, [0, 2]);
  assert.deepEqual(run({ q: '"jazz age"' }).matches, [2]);
  assert.deepEqual(run({ ranges: { steps: [4, null] } }).matches, [1, 2]);
  assert.deepEqual(run({ facets: { model: ["t5"] } }).matches, [0, 2]);
  assert.deepEqual(run({ facets: { model: ["__proto__"] } }).matches, [3]);
  assert.deepEqual(run({ facets: { tags: ["y", "constructor"] } }).matches, [1, 3, 4]);
  assert.deepEqual(run({ facets: { tags: ["x"] }, q: "rock" }).matches, [1]);
});

test("a chip counts the rows passing every filter but its own column's", () => {
  const { masks } = run({ facets: { model: ["t5"], tags: ["x"] } });
  const counts = chipCounts(rows, 5, masks, ["model", "tags"]);
  assert.equal(counts.model.t5, 1);
  assert.equal(counts.model.gpt2, 1);
  assert.equal(counts.tags.x, 1);
  assert.equal(counts.tags.y, undefined);
});

test("counts per value: a list counts under each of its labels, missing values apart", () => {
  const counts = valueCounts(rows.tags, codeCounts(rows.tags, null, 5));
  assert.deepEqual({ ...counts }, { x: 2, y: 2, constructor: 1 });
  assert.equal(codeCounts(rows.model, null, 5)[rows.model.size], 1);
});

test("a counting sort of codes: ties in row order, missing last either way", () => {
  const keep = Uint8Array.of(1, 1, 1, 1, 1);
  assert.deepEqual(Array.from(sortRows(keep, rows.steps.codes, rows.steps.size, false)), [0, 3, 1, 2, 4]);
  assert.deepEqual(Array.from(sortRows(keep, rows.steps.codes, rows.steps.size, true)), [2, 1, 3, 0, 4]);
});

test("filters of columns this level lacks are dropped, the others survive a change of level", () => {
  const state = fullState({ split: "d/s", sort: "nope" });
  state.facets.model = ["t5"];
  state.facets.gone = ["x"];
  state.ranges.steps = [1, 2];
  state.ranges.model = [1, 2];
  keepKnownColumns(rows, state);
  assert.deepEqual(Object.keys(state.facets), ["model"]);
  assert.deepEqual(Object.keys(state.ranges), ["steps"]);
  assert.equal(state.sort, "");
});
