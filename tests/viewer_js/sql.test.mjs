// Unit tests of the SQL console's pure helpers (book/_static/viewer/sql.js), run by `node --test`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  NO_EXTENSIONS, blankedSql, extensionRefusal, extensionStatement, queryFailure, withoutExtensionAdvice,
} from "../../book/_static/viewer/sql.js";

test("INSTALL and LOAD are found in any statement of a query, in any case", () => {
  assert.equal(extensionStatement("INSTALL json"), "INSTALL");
  assert.equal(extensionStatement("  load json;"), "LOAD");
  assert.equal(extensionStatement("SELECT 1; force   install httpfs"), "FORCE INSTALL");
  assert.equal(extensionStatement("select 1;\n-- a comment\nLoad 'json';"), "LOAD");
  assert.equal(extensionStatement("/* note */ INSTALL json FROM community"), "INSTALL");
  assert.equal(extensionStatement("UPDATE EXTENSIONS"), "UPDATE EXTENSIONS");
});

test("words inside strings, identifiers and comments are not statements", () => {
  assert.equal(extensionStatement("SELECT 'x; INSTALL json' AS s"), null);
  assert.equal(extensionStatement('SELECT 1 AS "a; load json"'), null);
  assert.equal(extensionStatement("SELECT 1 -- ; INSTALL json"), null);
  assert.equal(extensionStatement("SELECT 1 /* ; LOAD json */"), null);
  assert.equal(extensionStatement("SELECT 'it''s; INSTALL json'"), null);
  assert.equal(extensionStatement("SELECT count(*) AS installs, 'load' FROM dialogues WHERE text LIKE '%install%'"), null);
  assert.equal(extensionStatement("SELECT * FROM loads"), null);
});

test("a backslash never hides a statement: blanking errs towards seeing one", () => {
  // DuckDB ends the string at the second quote (a backslash escapes nothing): INSTALL is a statement
  assert.equal(extensionStatement("SELECT 'a\\'; INSTALL json; --'"), "INSTALL");
  assert.equal(blankedSql("SELECT 'ab' -- c").length, "SELECT 'ab' -- c".length);
});

test("the refusal names the statement, not the query's text, and says why", () => {
  assert.equal(extensionRefusal("INSTALL"), "Not run: the query has an INSTALL statement. " + NO_EXTENSIONS);
  assert.equal(extensionRefusal("LOAD"), "Not run: the query has a LOAD statement. " + NO_EXTENSIONS);
});

test("a linked query's error is shown as the query's, apart from the console's words", () => {
  const phishing = "Invalid Input Error: Your session expired: sign in again at https://evil.example";
  const linked = queryFailure(phishing, true);
  assert.ok(!linked.lead.includes("evil.example") && !linked.lead.includes("session"));
  assert.match(linked.lead, /came with the link/);
  assert.match(linked.lead, /not a message of this book/);
  assert.equal(linked.error, phishing);
  const typed = queryFailure("Parser Error: syntax error at or near \"SELEC\"", false);
  assert.ok(!typed.lead.includes("link") && typed.error.startsWith("Parser Error"));
});

test("the console's note on extensions comes first, and DuckDB's INSTALL advice is dropped", () => {
  const duckdb = "Catalog Error: Type with name JSON does not exist!\nDid you mean \"BLOB\"?\n\n" +
    "Please try installing and loading the json extension:\nINSTALL json;\nLOAD json;\n";
  const failure = queryFailure(duckdb, false);
  assert.ok(failure.lead.startsWith("The query failed, so no result is shown. " + NO_EXTENSIONS));
  assert.ok(!failure.error.includes("INSTALL") && !failure.error.includes("LOAD json"));
  assert.ok(failure.error.startsWith("Catalog Error: Type with name JSON does not exist!"));
  const binder = "Binder Error: read_json is in the json extension. To install and load the extension, run:\n" +
    "INSTALL json;\nLOAD json;\n\nAlternatively, consider enabling auto-install and auto-load by running:\n" +
    "SET autoinstall_known_extensions=1;";
  assert.equal(withoutExtensionAdvice(binder), "Binder Error: read_json is in the json extension.");
  assert.equal(withoutExtensionAdvice("Parser Error: no advice here"), "Parser Error: no advice here");
});

test("the tables of a page: every split of every dataset by its full name, the dataset on screen's by its short one", async () => {
  const { catalogue } = await import("../../book/_static/viewer/sql.js");
  const splits = [{ dataset: "faithdial", split: "train" }, { dataset: "faithdial_audit", split: "gold_wow" },
    { dataset: "faithdial_audit", split: "gpt2_wow" }];
  const tables = catalogue(splits, "faithdial_audit", ["dialogues", "turns"]);
  const names = tables.map((table) => table.name);
  assert.deepEqual(names, ["faithdial_train_dialogues", "faithdial_train_turns", "faithdial_audit_gold_wow_dialogues",
    "faithdial_audit_gold_wow_turns", "faithdial_audit_gpt2_wow_dialogues", "faithdial_audit_gpt2_wow_turns",
    "gold_wow_dialogues", "gold_wow_turns", "gpt2_wow_dialogues", "gpt2_wow_turns"]);
  const short = tables.find((table) => table.name === "gold_wow_turns");
  assert.equal(short && short.canonical, "faithdial_audit_gold_wow_turns");
  assert.equal(new Set(names).size, names.length);
  // a short name that is another table's full name is not given twice
  const clash = catalogue([{ dataset: "a", split: "b_c" }, { dataset: "x", split: "a_b_c" }], "x", ["turns"]);
  assert.deepEqual(clash.map((table) => table.name), ["a_b_c_turns", "x_a_b_c_turns"]);
});

test("a DECIMAL's unscaled digits with the point placed by its scale", async () => {
  const { decimalValue } = await import("../../book/_static/viewer/sql.js");
  assert.equal(decimalValue(2360381861575179, 15), 2.360381861575179);
  assert.equal(decimalValue("-5", 2), -0.05);
  assert.equal(decimalValue(BigInt(1234500), 2), 12345);
  assert.equal(decimalValue(null, 3), null);
});
