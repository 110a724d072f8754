/* The SQL console's engine: DuckDB-WASM, served by the book, closed to the network, with every split
 * and level of the dataset as a table <split>_<level> (and the split on screen's levels as
 * dialogues, turns and evidence). */

/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {{db: any, conn: any}} Engine */

/* Run once DuckDB connects, before any table is made or any query runs. A query is the reader's (or
 * a link's) text, so DuckDB must neither reach the network nor read the site's own files: no
 * extension is installed or loaded on demand (JSON, Parquet, time zones, full-text search would be
 * fetched from extensions.duckdb.org), no file or URL is read, written, attached or listed
 * (read_csv, read_text, ATTACH, COPY TO, glob), and the configuration is locked, so that a query
 * cannot turn any of this back on. The tables are given to DuckDB as Arrow data from this script,
 * which needs no external access. */
export const LOCKDOWN = [
  "SET autoinstall_known_extensions = false",
  "SET autoload_known_extensions = false",
  "SET enable_external_access = false",
  "SET lock_configuration = true",
];

/* A book built without npm has no DuckDB-WASM (its pages carry a meta tag): the console says so. */
export const SQL_MISSING = "This book was built without npm, so its SQL console (DuckDB-WASM) is not part of it. " +
  "To have it, install Node.js and npm (make system-deps) and build the book again.";

/** @returns {boolean} */
export function sqlConsoleMissing() {
  return document.querySelector('meta[name="atlas-sql-console"][content="missing"]') !== null;
}

/**
 * A name as an SQL identifier.
 * @param {string} name
 * @returns {string}
 */
export function sqlName(name) {
  return '"' + String(name).replace(/"/g, '""') + '"';
}

/**
 * The table of a split's level: <split>_<level>, the split's name with anything but letters, digits
 * and "_" as "_" (valid_seen_dialogues, test_turns).
 * @param {string} split
 * @param {string} level
 * @returns {string}
 */
export function tableName(split, level) {
  return (split.replace(/[^A-Za-z0-9_]/g, "_") + "_" + level).toLowerCase();
}

/**
 * The tables a query names, of ``known`` (whole words, case aside): only these are loaded.
 * @param {string} sql
 * @param {string[]} known
 * @returns {string[]}
 */
export function tablesNamed(sql, known) {
  const words = new Set((sql.toLowerCase().match(/[a-z0-9_]+/g) || []));
  return known.filter((name) => words.has(name.toLowerCase()));
}

/**
 * True when every value of a number column is a whole number a 64-bit float holds exactly: the
 * column is then given to DuckDB as integers (a count stays a count, SUM is an integer).
 * @param {ArrayLike<unknown>} values
 * @returns {boolean}
 */
export function wholeNumbers(values) {
  for (let k = 0; k < values.length; k += 1) {
    const v = values[k];
    if (typeof v !== "number" || !Number.isSafeInteger(v)) { return false; }
  }
  return true;
}

/**
 * A value of a query's result as plain JavaScript: a 64-bit integer as a number (as a string past
 * 2^53, so that no digit is lost), a list as an array.
 * @param {any} value
 * @returns {any}
 */
export function plainValue(value) {
  if (typeof value === "bigint") {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(-Number.MAX_SAFE_INTEGER) ? Number(value) : String(value);
  }
  if (value && typeof value.toArray === "function") {
    return Array.from(value.toArray()).map(plainValue);
  }
  if (value && typeof value === "object" && typeof value.toJSON === "function") {
    // a 128-bit integer (DuckDB's sum of integers) comes as an object writing its digits as JSON text
    const json = value.toJSON();
    return typeof json === "string" ? wholeNumber(json.replace(/^"|"$/g, "")) : json;
  }
  return value;
}

/**
 * Digits as a number where a double holds them exactly, else the digits (any other text as it is).
 * @param {string} text
 * @returns {number | string}
 */
export function wholeNumber(text) {
  if (!/^-?\d+$/.test(text)) {
    return text;
  }
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : text;
}

/**
 * @param {string} url
 * @returns {Promise<void>}
 */
function loadScript(url) {
  return new Promise((resolve, reject) => {
    const element = document.createElement("script");
    element.src = url;
    element.onload = () => resolve();
    element.onerror = () => { reject(new Error("could not load " + url)); };
    document.head.appendChild(element);
  });
}

/** @type {Promise<Engine> | null} */
let duck = null;

/**
 * DuckDB, started once and closed (LOCKDOWN) before anything else runs.
 * @param {string} siteRoot
 * @returns {Promise<Engine>}
 */
export function loadDuckDB(siteRoot) {
  if (duck) {
    return duck;
  }
  const base = siteRoot + "_static/vendor/duckdb/";
  const page = /** @type {any} */ (window);
  // Arrow's bundle defines the global Arrow, unless an AMD loader on the page takes it: hide that loader.
  const define = page.define;
  page.define = undefined;
  const started = loadScript(base + "Arrow.es2015.min.js").then(() => {
    page.define = define;
    return import(base + "duckdb-browser.mjs");
  }).then((duckdb) => {
    const worker = new Worker(base + "duckdb-browser-eh.worker.js");
    const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
    return db.instantiate(base + "duckdb-eh.wasm").then(() => db.connect()).then((/** @type {any} */ conn) => {
      // closed before any table is made or any query runs (see LOCKDOWN)
      let closing = Promise.resolve();
      LOCKDOWN.forEach((sql) => { closing = closing.then(() => conn.query(sql)); });
      return closing.then(() => ({ db, conn }));
    });
  });
  duck = started;
  started.catch(() => { duck = null; page.define = define; });
  return started;
}

/**
 * A level as a DuckDB view named ``name``. DuckDB gets what the grid holds, as it holds it: a table
 * of the columns' codes (integers) and per column a table of its distinct values; the view joins
 * them, so a text shown at many rows is stored once there too. Returns the columns left out (lazy).
 * @param {Engine} engine
 * @param {LevelData} data
 * @param {string} name
 * @returns {Promise<string[]>}
 */
export function createLevelView(engine, data, name) {
  const Arrow = /** @type {any} */ (window).Arrow;
  const prefix = "_" + name;
  const statements = ["DROP VIEW IF EXISTS " + sqlName(name), "DROP TABLE IF EXISTS " + sqlName(name)];
  /** @type {Array<[any, string]>} */
  const inserts = [];
  /** @type {Record<string, any>} */
  const codes = {};
  /** @type {string[]} */
  const selects = [];
  /** @type {string[]} */
  const joins = [];
  /** @type {string[]} */
  const leftOut = [];
  data.info.columns.forEach((info, k) => {
    const column = data.columns[info.name];
    if (info.kind === "hidden" || column.size === 0) {
      return; // a column with no value at all (a label no row of this split carries) is not offered
    }
    if (column.lazy || !column.dict) {
      leftOut.push(data.level + "." + info.name);
      return;
    }
    codes["c" + k] = Arrow.makeVector(column.codes);
    const type = info.stored === "number" ? (wholeNumbers(column.dict) ? new Arrow.Int64() : new Arrow.Float64())
      : info.stored === "labels" ? new Arrow.List(new Arrow.Field("item", new Arrow.Utf8(), true)) : new Arrow.Utf8();
    const values = type instanceof Arrow.Int64 ? column.dict.map((v) => BigInt(/** @type {number} */ (v))) : column.dict;
    const positions = new Int32Array(column.size);
    for (let p = 0; p < column.size; p += 1) { positions[p] = p; }
    const table = prefix + "_" + k;
    statements.push("DROP TABLE IF EXISTS " + sqlName(table));
    inserts.push([new Arrow.Table({ code: Arrow.makeVector(positions), value: Arrow.vectorFromArray(values, type) }), table]);
    selects.push("d" + k + ".value AS " + sqlName(info.name));
    joins.push(" LEFT JOIN " + sqlName(table) + " d" + k + " ON d" + k + ".code = c.c" + k);
  });
  statements.push("DROP TABLE IF EXISTS " + sqlName(prefix));
  inserts.push([new Arrow.Table(codes), prefix]);
  let run = Promise.resolve();
  statements.forEach((sql) => { run = run.then(() => engine.conn.query(sql)); });
  inserts.forEach((pair) => {
    run = run.then(() => engine.conn.insertArrowTable(pair[0], { name: pair[1] }));
  });
  return run.then(() => engine.conn.query("CREATE VIEW " + sqlName(name) + " AS SELECT " + selects.join(", ") + " FROM " +
    sqlName(prefix) + " c" + joins.join(""))).then(() => leftOut);
}

/**
 * @typedef {object} Result
 * @property {string[]} names
 * @property {any[][]} rows
 */

/**
 * A query's result as column names and rows of plain values.
 * @param {any} result an Arrow table
 * @returns {Result}
 */
export function resultRows(result) {
  const fields = result.schema.fields;
  const names = fields.map((/** @type {{name: string}} */ field) => field.name);
  // a DECIMAL (DuckDB's type of a literal such as 2.36) comes as its unscaled digits: its scale places the point
  const scales = fields.map((/** @type {any} */ field) => (field.type && field.type.typeId === ARROW_DECIMAL ? field.type.scale : 0));
  const rows = result.toArray().map((/** @type {any} */ row) => names.map((/** @type {string} */ name, /** @type {number} */ k) =>
    (scales[k] ? decimalValue(plainValue(row[name]), scales[k]) : plainValue(row[name]))));
  return { names, rows };
}

/* Arrow's type id of a decimal. */
const ARROW_DECIMAL = 7;

/**
 * A decimal's value from its unscaled digits and its scale (2360381861575179 at scale 15 is
 * 2.360381861575179): a number, as the digits' text with the point placed parses.
 * @param {unknown} digits
 * @param {number} scale
 * @returns {unknown}
 */
export function decimalValue(digits, scale) {
  const text = typeof digits === "number" || typeof digits === "bigint" ? String(digits) : digits;
  if (typeof text !== "string" || !/^-?\d+$/.test(text)) {
    return digits;
  }
  const negative = text.charAt(0) === "-";
  const bare = (negative ? text.slice(1) : text).padStart(scale + 1, "0");
  return Number((negative ? "-" : "") + bare.slice(0, bare.length - scale) + "." + bare.slice(bare.length - scale));
}

/* What the console says of extensions, before anything DuckDB says: DuckDB's own errors advise
 * "INSTALL json; LOAD json;", which this console refuses (LOCKDOWN), and DuckDB-WASM answers INSTALL
 * with "Success" although nothing can then be loaded. */
export const NO_EXTENSIONS = "This console loads no extension and fetches nothing: its DuckDB has the functions it was built with.";

/**
 * The query with its comments and the insides of its quoted strings and identifiers blanked, so that a
 * ";" or a keyword inside them counts for nothing. Blanking errs on the side of seeing a statement: a
 * backslash never escapes a quote here, and a block comment ends at its first "*\/".
 * @param {string} sql
 * @returns {string}
 */
export function blankedSql(sql) {
  let out = "";
  let k = 0;
  while (k < sql.length) {
    const c = sql[k];
    const two = sql.slice(k, k + 2);
    if (two === "--") {
      const end = sql.indexOf("\n", k);
      const stop = end === -1 ? sql.length : end;
      out += " ".repeat(stop - k);
      k = stop;
    } else if (two === "/*") {
      const end = sql.indexOf("*/", k + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += " ".repeat(stop - k);
      k = stop;
    } else if (c === "'" || c === '"') {
      let stop = k + 1;
      for (;;) {
        const next = sql.indexOf(c, stop);
        if (next === -1) { stop = sql.length; break; }
        if (sql[next + 1] === c) { stop = next + 2; continue; } // a doubled quote stays inside
        stop = next + 1;
        break;
      }
      out += c + " ".repeat(Math.max(stop - k - 2, 0)) + (stop - k >= 2 ? c : "");
      k = stop;
    } else {
      out += c;
      k += 1;
    }
  }
  return out;
}

/**
 * The statement of ``sql`` that installs or loads a DuckDB extension (``INSTALL``, ``FORCE INSTALL``,
 * ``LOAD``, ``UPDATE EXTENSIONS``), named by its keywords, or null. Such a statement is refused
 * before DuckDB sees the query.
 * @param {string} sql
 * @returns {string | null}
 */
export function extensionStatement(sql) {
  for (const statement of blankedSql(sql).split(";")) {
    const head = statement.trim().match(/^(force\s+install|install|load|update\s+extensions)\b/i);
    if (head) {
      return head[1].toUpperCase().replace(/\s+/g, " ");
    }
  }
  return null;
}

/**
 * DuckDB's error without its advice to install or load an extension (the console's own note says
 * why that cannot be done here).
 * @param {string} message
 * @returns {string}
 */
export function withoutExtensionAdvice(message) {
  const advice = message.search(/please try installing|to install and load|alternatively, consider enabling auto|^\s*(?:force\s+)?install\s+\w+\s*;/im);
  return (advice === -1 ? message : message.slice(0, advice)).trim();
}

/**
 * @typedef {object} Failure
 * @property {string} lead what the console says, in its own words
 * @property {string} error the query's error, as DuckDB gave it: shown apart, as the query's text
 */

/**
 * What the console shows when a query fails: its own lead (the extension note first, where the
 * error is about one; that the query came with a link, where it did) and DuckDB's error kept apart,
 * never run together with the console's words: a linked query can make DuckDB say anything
 * (``SELECT error('...')``).
 * @param {string} message DuckDB's error
 * @param {boolean} fromLink the query is the one a link brought, unchanged
 * @returns {Failure}
 */
export function queryFailure(message, fromLink) {
  const aboutExtensions = /extension/i.test(message) || extensionStatement(message) !== null;
  const lead = "The query failed, so no result is shown." + (aboutExtensions ? " " + NO_EXTENSIONS : "") +
    (fromLink ? " The query came with the link you opened: the error below is what that query made DuckDB say, " +
      "not a message of this book." : " DuckDB's error:");
  return { lead, error: aboutExtensions ? withoutExtensionAdvice(message) : message };
}

/**
 * The console's answer to a query that installs or loads an extension, before DuckDB sees it.
 * @param {string} statement the keywords, as extensionStatement gives them
 * @returns {string}
 */
export function extensionRefusal(statement) {
  return "Not run: the query has " + (/^[AEIOU]/.test(statement) ? "an " : "a ") + statement + " statement. " + NO_EXTENSIONS;
}

/**
 * @typedef {object} CatalogueSplit
 * @property {string} dataset
 * @property {string} split
 */

/**
 * @template {CatalogueSplit} S
 * @typedef {object} CatalogueTable a table the console offers
 * @property {string} name as a query names it
 * @property {S} split
 * @property {string} level
 * @property {string} canonical the table loaded into DuckDB (``name`` itself, or the one it is a view of)
 */

/**
 * The tables of a page's splits: every split of every dataset the page shows, at every level, as
 * <dataset>_<split>_<level> (wow_train_turns, faithdial_audit_gold_wow_turns), so that splits of two
 * datasets on one page can be joined; the splits of the dataset on screen also as <split>_<level>
 * (train_turns), views of the same tables. A name already taken is not given twice.
 * @template {CatalogueSplit} S
 * @param {S[]} splits
 * @param {string} dataset the dataset on screen
 * @param {string[]} levels
 * @returns {Array<CatalogueTable<S>>}
 */
export function catalogue(splits, dataset, levels) {
  /** @type {Array<CatalogueTable<S>>} */
  const tables = [];
  /** @type {Set<string>} */
  const taken = new Set();
  splits.forEach((split) => {
    levels.forEach((level) => {
      const name = tableName(split.dataset + "_" + split.split, level);
      if (!taken.has(name)) {
        taken.add(name);
        tables.push({ name, split, level, canonical: name });
      }
    });
  });
  splits.filter((split) => split.dataset === dataset).forEach((split) => {
    levels.forEach((level) => {
      const name = tableName(split.split, level);
      if (!taken.has(name)) {
        taken.add(name);
        tables.push({ name, split, level, canonical: tableName(split.dataset + "_" + split.split, level) });
      }
    });
  });
  return tables;
}

/** @type {Promise<Engine> | null} */
let started = null;

/** @returns {boolean} true once DuckDB has started (a query then needs no start-up) */
export function duckDBReady() {
  return started !== null;
}

/**
 * loadDuckDB, remembering that it has started.
 * @param {string} siteRoot
 * @returns {Promise<Engine>}
 */
export function startDuckDB(siteRoot) {
  const engine = loadDuckDB(siteRoot);
  engine.then((ready) => { started = Promise.resolve(ready); }, () => { started = null; });
  return engine;
}
