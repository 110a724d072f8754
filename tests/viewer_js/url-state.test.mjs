// The view in the URL (book/_static/viewer/url-state.js): what a link holds comes back.
import assert from "node:assert/strict";
import { test } from "node:test";

import { SEARCH_CAP } from "../../book/_static/viewer/text.js";
import {
  atLevel, fullState, readHash, setRange, sortBy, toggleValue, writeHash,
} from "../../book/_static/viewer/url-state.js";

test("a view written to the hash reads back the same", () => {
  const state = fullState({ split: "wow/valid_seen", level: "turns", q: 'jazz "a b"', sort: "turn", desc: true, page: 3,
    row: "train/0", sql: "SELECT 1 + 1" });
  state.facets.role = ["wizard", "seeker"];
  state.ranges.turn = [2, null];
  const hash = writeHash(state);
  assert.ok(hash.startsWith("#viewer=wow/valid_seen&level=turns"), hash);
  const back = readHash(hash);
  assert.ok(back);
  assert.deepEqual({ ...back, facets: { ...back.facets }, ranges: { ...back.ranges } },
    { ...state, facets: { role: ["wizard", "seeker"] }, ranges: { turn: [2, null] } });
});

test("crafted links: unknown levels, prototype names, long searches", () => {
  const state = readHash("#viewer=x/y&level=__proto__&f=__proto__=1&f=constructor=2&r=toString=1~2&q=" + "w%20".repeat(500));
  assert.ok(state);
  assert.equal(state.level, "dialogues");
  assert.equal(Object.getPrototypeOf(state.facets), null);
  assert.deepEqual(state.facets.__proto__, ["1"]);
  assert.deepEqual(state.ranges.toString, [1, 2]);
  assert.equal(state.q.length, SEARCH_CAP);
  assert.equal(state.searchCut, true);
  assert.equal(readHash("#wow/train/0"), null);
});

test("a pinned row and the rows per page are kept in the link", () => {
  const state = fullState({ split: "wow/train", level: "turns", row: "train/3", pin: "train/1", per: 250 });
  const hash = writeHash(state);
  assert.ok(hash.includes("row=train/3") && hash.includes("pin=train/1") && hash.includes("per=250"), hash);
  const back = readHash(hash);
  assert.ok(back);
  assert.equal(back.pin, "train/1");
  assert.equal(back.per, 250);
  const huge = readHash("#viewer=wow/train&per=100000");
  assert.ok(huge);
  assert.equal(huge.per, 1000);
});

test("the view's changes: a chip, a range, a sort and another level, each back at the first page", () => {
  const state = fullState({ split: "wow/train", level: "turns", q: "jazz", page: 4, per: 250, row: "r1", sql: "SELECT 1" });
  toggleValue(state, "role", "wizard", true);
  toggleValue(state, "role", "seeker", true);
  toggleValue(state, "role", "wizard", false);
  assert.deepEqual({ ...state.facets }, { role: ["seeker"] });
  assert.equal(state.page, 0);
  toggleValue(state, "role", "seeker", false);
  assert.deepEqual(Object.keys(state.facets), []);
  state.page = 2;
  setRange(state, "turn", [1, null]);
  assert.deepEqual({ ...state.ranges }, { turn: [1, null] });
  assert.equal(state.page, 0);
  setRange(state, "turn", [null, null]);
  assert.deepEqual(Object.keys(state.ranges), []);
  sortBy(state, "turn");
  assert.deepEqual([state.sort, state.desc], ["turn", false]);
  sortBy(state, "turn");
  assert.deepEqual([state.sort, state.desc], ["turn", true]);
  sortBy(state, "text");
  assert.deepEqual([state.sort, state.desc], ["text", false]);
  toggleValue(state, "role", "wizard", true);
  const other = fullState(atLevel(state, "evidence"));
  assert.deepEqual([other.level, other.q, other.sort, other.facets.role, other.page, other.per, other.row, other.sql],
    ["evidence", "jazz", "text", ["wizard"], 0, 0, null, ""]);
});
