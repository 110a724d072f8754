// Statistics and histogram bins (book/_static/viewer/statistics.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MAX_BINS, describe, histogramBins, percent } from "../../book/_static/viewer/statistics.js";
import { sqlName, tableName, tablesNamed, wholeNumbers, plainValue } from "../../book/_static/viewer/sql.js";

test("describe matches pandas (std with n - 1)", () => {
  const stats = describe([1, 2, 3, 4]);
  assert.equal(stats.mean, 2.5);
  assert.equal(stats.median, 2.5);
  assert.ok(Math.abs(stats.std - 1.2909944487358056) < 1e-12);
  assert.deepEqual(describe([]), { count: 0 });
});

test("whole numbers get whole-number bins of one width, and counts that add up", () => {
  const values = Float64Array.from({ length: 500 }, (_, k) => k % 97);
  const { bins, integers } = histogramBins(values.sort());
  assert.ok(integers);
  assert.ok(bins.length <= MAX_BINS);
  const width = bins[0].to - bins[0].from + 1;
  for (const bin of bins) {
    assert.ok(Number.isInteger(bin.from) && Number.isInteger(bin.to) && Number.isInteger(bin.count));
    assert.equal(bin.to - bin.from + 1, width);
  }
  assert.equal(bins.reduce((sum, bin) => sum + bin.count, 0), 500);
  assert.deepEqual(histogramBins(Float64Array.of(2, 2, 3)).bins, [{ from: 2, to: 2, count: 2 }, { from: 3, to: 3, count: 1 }]);
});

test("other numbers: at most MAX_BINS bins covering min to max", () => {
  const { bins, integers } = histogramBins(Float64Array.of(0.5, 1.25, 2.75, 9.5));
  assert.ok(!integers);
  assert.equal(bins[0].from, 0.5);
  assert.equal(bins[bins.length - 1].to, 9.5);
  assert.equal(bins.reduce((sum, bin) => sum + bin.count, 0), 4);
});

test("shares of empty values", () => {
  assert.equal(percent(1, 3), "33.3 %");
  assert.equal(percent(0, 0), "0 %");
  assert.equal(percent(1, 100000), "<0.1 %");
});

test("SQL: one table per split and level, loaded when a query names it; whole numbers stay integers", () => {
  assert.equal(tableName("valid_seen", "turns"), "valid_seen_turns");
  assert.equal(tableName("kilt-dev", "dialogues"), "kilt_dev_dialogues");
  assert.deepEqual(tablesNamed("SELECT * FROM Answered_Dialogues JOIN not_answered_turns USING (id)",
    ["answered_dialogues", "not_answered_turns", "answered_turns"]), ["answered_dialogues", "not_answered_turns"]);
  assert.equal(sqlName('a"b'), '"a""b"');
  assert.ok(wholeNumbers([1, 2, 3]));
  assert.ok(!wholeNumbers([1, 2.5]));
  assert.equal(plainValue(3n), 3);
  assert.equal(plainValue(2n ** 60n), "1152921504606846976");
  // DuckDB's HUGEINT (a sum of integers), as Arrow gives it: an object writing its digits as JSON
  assert.equal(plainValue({ toJSON: () => '"52728"' }), 52728);
  assert.equal(plainValue({ toJSON: () => '"123456789012345678901234"' }), "123456789012345678901234");
});

import { chunksOf, joinFragments } from "../../book/_static/viewer/data.js";

test("a rendering is joined from its fragments, each chunk fetched once", () => {
  assert.deepEqual(chunksOf([7, 1, 5, 1], 3), [0, 1, 2]);
  assert.equal(joinFragments([0, 2, 0], { 0: ["<li>a</li>", "<li>b</li>"], 1: ["<p>c</p>"] }, 2), "<li>a</li><p>c</p><li>a</li>");
  assert.throws(() => joinFragments([9], { 0: ["x"] }, 2), /fragment 9/);
});
