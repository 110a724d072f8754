// The files utils/book/viewer_files.py writes, decoded by data.js (and fetched through store.js) as the browser does.
// Written by tests/test_viewer_js.py for a demo split, with what Python reads from them, into the
// directory $ATLAS_VIEWER_FILES (expected.json); skipped without it.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";

import {
  FORMAT, cell, cellLater, ensurePages, fetchManifest, fetchRendering, loadAllCodes, loadLevelData,
} from "../../book/_static/viewer/data.js";
import { searchableColumns, statColumns, visibleColumns } from "../../book/_static/viewer/columns.js";
import { rowHolding } from "../../book/_static/viewer/row-view.js";
import { splitStore } from "../../book/_static/viewer/store.js";

const DIR = process.env.ATLAS_VIEWER_FILES || "";
const skip = DIR ? false : "run by tests/test_viewer_js.py, which writes the files ($ATLAS_VIEWER_FILES)";

/* The site, served from the directory: a missing file is a 404. */
globalThis.fetch = /** @type {typeof fetch} */ (async (url) => {
  try {
    return new Response(await readFile(String(url)));
  } catch (error) {
    return new Response(null, { status: 404 });
  }
});

async function expected() {
  return JSON.parse(await readFile(join(DIR, "expected.json"), "utf-8"));
}

test("data.js reads the format utils/book/viewer_files.py writes, and refuses another", { skip }, async () => {
  const want = await expected();
  assert.equal(FORMAT, want.format, "data.js's FORMAT is not utils/book/viewer_files.py's");
  for (const one of want.cases) {
    const manifest = await fetchManifest(join(DIR, one.path, "manifest.json"));
    assert.equal(manifest.format, FORMAT);
  }
  await assert.rejects(fetchManifest(join(DIR, "other-format.json")), /unknown data format/);
});

test("every row and column of every level decodes to the values Python reads", { skip }, async () => {
  const want = await expected();
  for (const one of want.cases) {
    const base = join(DIR, one.path) + "/";
    const manifest = await fetchManifest(base + "manifest.json");
    assert.deepEqual(Object.keys(manifest.levels), Object.keys(one.levels), one.name);
    for (const level of Object.keys(one.levels)) {
      const wanted = one.levels[level];
      const data = await loadLevelData(base, manifest, level);
      assert.equal(data.rows, wanted.rows, one.name + " " + level);
      assert.deepEqual(Object.keys(data.columns), Object.keys(wanted.values), one.name + " " + level);
      const rows = Array.from({ length: data.rows }, (_, k) => k);
      for (const name of Object.keys(wanted.values)) {
        const column = data.columns[name];
        const where = one.name + " " + level + "." + name;
        if (column.lazy && data.rows) { // read for the rows on screen: the last row first, then every row
          assert.equal(cell(column, data.rows - 1), undefined, where);
          assert.deepEqual(await cellLater(column, data.rows - 1), wanted.values[name][data.rows - 1], where);
          await loadAllCodes(column);
        }
        if (column.paged) {
          await ensurePages(column, rows);
        }
        assert.deepEqual(rows.map((row) => cell(column, row)), wanted.values[name], where);
      }
    }
  }
});

test("a level of several shards shows its first shard's rows before the others arrive", { skip }, async () => {
  const want = await expected();
  let seen = 0;
  for (const one of want.cases) {
    const base = join(DIR, one.path) + "/";
    const manifest = await fetchManifest(base + "manifest.json");
    for (const level of Object.keys(one.levels)) {
      const wanted = one.levels[level];
      /** @type {number[]} */
      const calls = [];
      let whole = false;
      const data = await loadLevelData(base, manifest, level, (first, rows) => {
        assert.equal(whole, false, "called before the level is whole");
        calls.push(rows);
        assert.equal(rows, manifest.levels[level].shards[0].rows);
        for (const name of Object.keys(wanted.values)) { // the first rows' values are in (a lazy column's are fetched)
          const column = first.columns[name];
          if (!column.lazy) {
            const values = Array.from({ length: rows }, (_, row) => cell(column, row));
            assert.deepEqual(values, wanted.values[name].slice(0, rows), one.name + " " + level + "." + name);
          }
        }
      }).then((loaded) => { whole = true; return loaded; });
      assert.equal(data.rows, wanted.rows);
      assert.equal(calls.length, manifest.levels[level].shards.length > 1 ? 1 : 0, one.name + " " + level);
      seen += calls.length;
    }
  }
  assert.ok(seen > 0, "no level of several shards");
});

test("every dialogue's rendering joins again from its fragments", { skip }, async () => {
  const want = await expected();
  for (const one of want.cases) {
    const base = join(DIR, one.path) + "/";
    const manifest = await fetchManifest(base + "manifest.json");
    const held = { html: {}, fragments: {} };
    for (const [dialogue, html] of Object.entries(one.renderings)) {
      assert.equal(await fetchRendering(base, manifest.html, held, Number(dialogue)), html, one.name + " " + dialogue);
    }
  }
});

test("the viewer's store loads a level and a rendering of the split as a page lists it", { skip }, async () => {
  const want = await expected();
  const one = want.cases[0];
  const store = splitStore(DIR + "/");
  const split = { dataset: one.dataset, split: one.split, label: one.split, path: one.path + "/" };
  const data = await store.load(split, "turns");
  assert.equal(data.rows, one.levels.turns.rows);
  assert.equal(await store.load(split, "turns"), data); // held, not fetched again
  assert.equal(await store.rendering(split, data.manifest.html, 0), one.renderings["0"]);
  assert.equal(await store.withheld(split), null);
});

test("the grid's columns, the searched ones and the statistics', and the row an id opens", { skip }, async () => {
  const want = await expected();
  for (const one of want.cases) {
    const base = join(DIR, one.path) + "/";
    const manifest = await fetchManifest(base + "manifest.json");
    for (const level of Object.keys(one.levels)) {
      const data = await loadLevelData(base, manifest, level);
      const names = Object.keys(one.levels[level].values);
      const shown = visibleColumns(data).map((column) => column.name);
      const first = (manifest.identifying || {})[level] || [];
      const kept = names.filter((name) => !name.startsWith("_") &&
        one.levels[level].values[name].some((value) => value !== null));
      assert.deepEqual(shown, [...first.filter((name) => kept.includes(name)), ...kept.filter((name) => !first.includes(name))],
        one.name + " " + level);
      for (const column of searchableColumns(data)) {
        assert.ok(column.stored !== "number" && !column.lazy, column.name);
      }
      assert.ok(statColumns(data).every((column) => shown.includes(column.name) && column.name !== data.info.id));
      const ids = one.levels[level].values[data.info.id];
      ids.forEach((id, row) => {
        if (id !== null && ids.indexOf(id) === row && !data.columns[data.info.id].lazy) {
          assert.equal(rowHolding(data, String(id)), row, one.name + " " + level + " " + id);
        }
      });
      assert.equal(rowHolding(data, "no such id \u2603"), -1);
    }
  }
});
