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
