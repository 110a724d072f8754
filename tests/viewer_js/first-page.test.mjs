// The first page drawn while a level loads (book/_static/viewer/first-page.js): only a view of the
// first rows in file order gets one, the rows the whole level's view shows then.
import assert from "node:assert/strict";
import { test } from "node:test";

import { firstRowsShown } from "../../book/_static/viewer/first-page.js";
import { sortRows } from "../../book/_static/viewer/filters.js";
import { fullState } from "../../book/_static/viewer/url-state.js";

test("a view of the first rows in file order is drawn from the first shard, the same rows as once whole", () => {
  const state = fullState({ split: "wow/train", level: "evidence" });
  const rows = firstRowsShown(state, 4, 10);
  assert.deepEqual(rows, [0, 1, 2, 3]);
  // the whole level's view of the same state: every row kept, in file order, its first page
  const whole = sortRows(new Uint8Array(25).fill(1), null, 0, false);
  assert.deepEqual(Array.from(whole.subarray(0, 4)), rows);
  assert.deepEqual(firstRowsShown({ ...state, page: 1 }, 4, 10), [4, 5, 6, 7]);
});

test("a search, a filter, a range, a sort or a page past the first shard waits for every row", () => {
  const state = fullState({ split: "wow/train", level: "evidence" });
  assert.equal(firstRowsShown({ ...state, page: 2 }, 4, 10), null); // rows 8 to 11: past the 10 held
  assert.equal(firstRowsShown({ ...state, q: "jazz" }, 4, 10), null);
  assert.equal(firstRowsShown({ ...state, sort: "turn" }, 4, 10), null);
  const filtered = fullState({ split: "wow/train", level: "evidence" });
  filtered.facets.selected = ["true"];
  assert.equal(firstRowsShown(filtered, 4, 10), null);
  const ranged = fullState({ split: "wow/train", level: "evidence" });
  ranged.ranges.turn = [3, null];
  assert.equal(firstRowsShown(ranged, 4, 10), null);
});
