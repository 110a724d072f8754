// A paged column's cells on screen (book/_static/viewer/data.js's ensureCells): the chunks of values
// a shard's rows need are fetched as soon as that shard's codes arrive, not once every shard's have.
import assert from "node:assert/strict";
import { test } from "node:test";

import { cell, ensureCells, newColumn } from "../../book/_static/viewer/data.js";

/* A paged column of 4 rows in 2 shards of codes, its 4 values in 2 chunks; row 3 missing. */
const FILES = {
  "codes-0.bin": new Uint8Array([2, 0]),
  "codes-1.bin": new Uint8Array([1, 4]),
  "values-0.json": new TextEncoder().encode(JSON.stringify(["a", "b"])),
  "values-1.json": new TextEncoder().encode(JSON.stringify(["c", "d"])),
};
const INFO = {
  name: "id", kind: "text", stored: "text", size: 4, bytes: /** @type {1} */ (1), chunk: 2, paged: true,
  dictionary: ["values-0.json", "values-1.json"], shards: [{ file: "codes-0.bin", rows: 2 }, { file: "codes-1.bin", rows: 2 }],
};

/**
 * A fetch serving FILES, holding back the files named in ``held`` until release() is called.
 * @param {string[]} held
 */
function server(held) {
  /** @type {string[]} */
  const asked = [];
  /** @type {Array<() => void>} */
  const waiting = [];
  globalThis.fetch = /** @type {typeof fetch} */ (async (url) => {
    const name = String(url);
    asked.push(name);
    if (held.includes(name)) { await new Promise((resolve) => { waiting.push(() => resolve(null)); }); }
    const bytes = /** @type {Record<string, Uint8Array>} */ (FILES)[name];
    return bytes ? new Response(bytes) : new Response(null, { status: 404 });
  });
  return { asked, release: () => { waiting.splice(0).forEach((go) => go()); } };
}

/** Let the fetches and promises under way settle. */
const settle = () => new Promise((resolve) => { setTimeout(resolve, 20); });

test("a shard's chunks of values are fetched before the other shards' codes arrive", async () => {
  const { asked, release } = server(["codes-1.bin"]);
  const column = newColumn(INFO, "", 4);
  const done = ensureCells(column, [0, 2, 3]);
  await settle();
  // row 0's code (2) arrived: its chunk (values-1) is asked for while shard 1 is held back
  assert.ok(asked.includes("values-1.json"), asked.join(" "));
  assert.equal(cell(column, 0), "c");
  assert.equal(cell(column, 2), undefined);
  release();
  assert.equal(await done, true);
  assert.deepEqual([0, 2, 3].map((row) => cell(column, row)), ["c", "b", null]); // row 3: missing
  assert.equal(await ensureCells(column, [0, 2, 3]), false); // all there: nothing fetched
});

test("a failed fetch rejects, and the chunk is fetched again next time", async () => {
  const { asked } = server([]);
  const column = newColumn({ ...INFO, dictionary: ["values-0.json", "no-such.json"] }, "", 4);
  await assert.rejects(ensureCells(column, [0]), /HTTP 404/);
  globalThis.fetch = /** @type {typeof fetch} */ (async (url) => {
    asked.push(String(url));
    return new Response(/** @type {Record<string, Uint8Array>} */ (FILES)[String(url) === "no-such.json" ? "values-1.json" : String(url)]);
  });
  assert.equal(await ensureCells(column, [0]), true);
  assert.equal(cell(column, 0), "c");
});
