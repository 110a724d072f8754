// Unit tests of the viewer's pure helpers (book/_static/viewer/text.js), run by `node --test`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { SEARCH_CAP, cellText, codePoints, csvCell, csvText, fmt, keyed, own, parseQuery } from "../../book/_static/viewer/text.js";

test("a search reads at most SEARCH_CAP characters and tests each needle once", () => {
  assert.deepEqual(parseQuery('jazz "Jazz  band" JAZZ'), ["jazz band"]);
  assert.deepEqual(parseQuery("a b a"), ["a", "b"]);
  assert.equal(parseQuery("x".repeat(SEARCH_CAP) + " hidden").length, 1);
  assert.deepEqual(parseQuery('say "unclosed'), ["say", "unclosed"]);
});

test("keys from data never reach Object.prototype", () => {
  const counts = keyed();
  for (const name of ["__proto__", "constructor", "toString"]) {
    counts[name] = (counts[name] || 0) + 1;
  }
  assert.deepEqual(Object.keys(counts), ["__proto__", "constructor", "toString"]);
  assert.equal(own({}, "toString"), undefined);
  assert.equal(own({ a: 1 }, "a"), 1);
});

test("CSV cells that a spreadsheet would run as formulas are neutralised, numbers are not", () => {
  for (const text of ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tTAB", "\rCR"]) {
    assert.ok(csvCell(text).replace(/^"/, "").startsWith("'"), text);
  }
  assert.equal(csvCell(-3), "-3");
  assert.equal(csvCell("plain"), "plain");
  assert.equal(csvCell('say "hi", then'), '"say ""hi"", then"');
  assert.equal(csvCell(null), "");
  assert.equal(csvText(["a", "b"], [[1, ["x", "y"]]]), 'a,b\r\n1,"[""x"",""y""]"\r\n');
});

test("lengths count code points as Python does; cells show lists joined and numbers grouped", () => {
  assert.equal(codePoints("a\u{1F600}b"), 3);
  assert.equal(cellText(["a", "b"]), "a, b");
  assert.equal(cellText(12345), "12,345");
  assert.equal(cellText(null), "");
  assert.equal(fmt(null), "\u2013");
});

test("a query's numbers as shown: four decimals, thousands grouped; the CSV keeps every digit", async () => {
  const { resultText, csvText, csvParts } = await import("../../book/_static/viewer/text.js");
  assert.equal(resultText(2.360381861575179), "2.3604");
  assert.equal(resultText(1234567), "1,234,567");
  assert.equal(resultText(-0.5), "-0.5");
  assert.equal(resultText(12345.67891), "12,345.6789");
  assert.equal(resultText("9007199254740993"), "9,007,199,254,740,993");
  assert.equal(resultText("2.5 apples"), "2.5 apples");
  assert.equal(resultText(null), "");
  assert.equal(resultText(["a", "b"]), '["a","b"]');
  assert.ok(csvText(["x"], [[2.360381861575179]]).includes("2.360381861575179"));
  const parts = csvParts(["a", "b"], [2, 0], (row, k) => (k ? "=cmd" : row * 1.5));
  assert.equal(parts.join(""), "a,b\r\n3,'=cmd\r\n0,'=cmd\r\n");
});
