/* The SQL console of a viewer: DuckDB-WASM over every split and level of the page's datasets (see
 * sql.js for the engine and the tables' names), its result shown with readable numbers and
 * downloaded as CSV with every digit. A function returning its element (a <details>), with
 * showLinked(sql) for a query a link brought and run() to run the one in the box. */

import { button, clear, labelled, make } from "./dom.js";
import { progressLine } from "./progress.js";
import { scroller } from "./scroller.js";
import {
  SQL_MISSING, catalogue, createLevelView, duckDBReady, extensionRefusal, extensionStatement, queryFailure, resultRows,
  sqlConsoleMissing, sqlName, startDuckDB, tablesNamed,
} from "./sql.js";
import { csvText, fmt, keyed, resultText } from "./text.js";
import { LEVELS } from "./url-state.js";

/** @typedef {import("./store.js").SplitEntry} SplitEntry */
/** @typedef {import("./data.js").LevelData} LevelData */

/**
 * @typedef {object} Viewer what the console reads of its viewer (app.js): the level on screen when it
 * is built, and again when a query loads a table
 * @property {HTMLElement} holder
 * @property {string} siteRoot
 * @property {SplitEntry[]} splits
 * @property {SplitEntry | null} split
 * @property {import("./store.js").SplitStore} store
 * @property {() => LevelData} level
 * @property {() => import("./url-state.js").ViewState} view
 * @property {() => void} saveHash
 */
/** @typedef {import("./sql.js").Engine} Engine */
/** @typedef {import("./sql.js").CatalogueTable<SplitEntry>} Table */

/* Rows of a result shown (the CSV has all). */
export const RESULT_ROWS = 500;

/**
 * @typedef {object} ConsoleState what DuckDB holds, kept across the consoles a viewer builds
 * @property {Record<string, string>} loaded table or view name -> the table it shows
 * @property {string[]} leftOut columns left out of the tables (too many distinct values)
 */

/** @returns {ConsoleState} */
export function consoleState() {
  return { loaded: keyed(), leftOut: [] };
}

/**
 * The console of the level on screen.
 * @param {Viewer} viewer
 * @param {ConsoleState} held
 * @returns {HTMLDetailsElement & {showLinked: (sql: string) => void, run: () => Promise<void>}}
 */
export function sqlConsole(viewer, held) {
  const box = make("details", "atlas-viewer-sql");
  const holder = viewer.holder;
  const data = viewer.level();
  const split = /** @type {SplitEntry} */ (viewer.split);
  const missing = sqlConsoleMissing();
  const tables = catalogue(viewer.splits, split.dataset, LEVELS);
  box.appendChild(make("summary", null, "SQL console (DuckDB, in your browser)" + (missing ? ": not in this build" : "")));
  if (missing) {
    box.appendChild(make("p", "atlas-viewer-note atlas-viewer-sql-missing", SQL_MISSING));
  }
  box.appendChild(tableList(tables, split));
  // what a column holds, where the dataset says (a normalised label beside the one as written)
  const notes = data.manifest.column_notes || {};
  Object.keys(notes).filter((name) => data.columns[name]).forEach((name) => {
    box.appendChild(make("p", "atlas-viewer-note atlas-viewer-sql-colnote", "\u201c" + name + "\u201d: " + notes[name]));
  });
  box.appendChild(make("p", "atlas-viewer-note atlas-viewer-sql-about",
    "Label columns holding lists: unnest or list_contains them. A table is loaded when a query first names it. " +
    "Numbers are shown rounded (4 decimals, thousands grouped); the CSV keeps every digit. DuckDB-WASM is served by " +
    "this book and runs in your browser, closed to the network: a query reads only these tables (no file, URL or " +
    "extension is read, written or fetched), so nothing leaves your browser."));
  const examples = make("select", "atlas-viewer-examples");
  const none = make("option", null, "example queries\u2026");
  none.value = "";
  examples.appendChild(none);
  const queries = data.manifest.queries || [];
  queries.forEach((query, i) => {
    const option = make("option", null, query.title);
    option.value = String(i);
    examples.appendChild(option);
  });
  box.appendChild(labelled("Example", examples));
  const text = make("textarea", "atlas-viewer-sqltext");
  text.rows = 5;
  text.spellcheck = false;
  text.setAttribute("aria-label", "SQL query");
  text.value = viewer.view().sql || "SELECT * FROM " + data.level + " LIMIT 10";
  box.appendChild(text);
  const runButton = button("Run", "atlas-viewer-run");
  box.appendChild(runButton);
  const pending = make("span", "atlas-viewer-note atlas-viewer-sqlpending",
    "This query came with the link and has not run: it runs only when you press Run.");
  pending.hidden = true;
  box.appendChild(pending);
  const download = make("a", "atlas-viewer-download", "download the result as CSV (every digit)");
  download.hidden = true;
  download.setAttribute("download", "query-result.csv");
  box.appendChild(download);
  const status = progressLine("atlas-viewer-sqlstatus");
  box.appendChild(status);
  // DuckDB's error, apart from the console's words: a query (a link's) can make it say anything
  const shownError = make("pre", "atlas-viewer-sqlerror");
  shownError.hidden = true;
  box.appendChild(shownError);
  const result = make("table", "atlas-viewer-grid atlas-viewer-result");
  box.appendChild(scroller(result, "The query's result"));
  /** @type {string | null} the query a link brought, as it came: its errors are shown as its own */
  let linkedSql = null;
  /** @type {string | null} */
  let downloadUrl = null;

  examples.addEventListener("change", () => {
    const query = queries[Number(examples.value)];
    if (examples.value !== "" && query) {
      text.value = query.sql;
    }
  });

  /** Clear the result and its CSV link (before a query runs, so a failed one leaves no old result). */
  const clearResult = () => {
    clear(result);
    shownError.hidden = true;
    shownError.textContent = "";
    download.hidden = true;
    download.removeAttribute("href");
    if (downloadUrl) {
      URL.revokeObjectURL(downloadUrl);
      downloadUrl = null;
    }
    holder.removeAttribute("data-sql-rows");
  };

  /** @returns {Promise<void>} */
  const run = () => {
    const sql = text.value.trim();
    if (!sql) {
      return Promise.resolve();
    }
    viewer.view().sql = sql;
    pending.hidden = true;
    viewer.saveHash();
    clearResult();
    if (sqlConsoleMissing()) {
      status.progress.done(SQL_MISSING);
      holder.setAttribute("data-sql-state", "missing");
      return Promise.resolve();
    }
    const extension = extensionStatement(sql);
    if (extension) { // refused before DuckDB answers: DuckDB-WASM would say "Success" to INSTALL
      status.progress.done(extensionRefusal(extension));
      holder.setAttribute("data-sql-state", "error");
      return Promise.resolve();
    }
    const fromLink = sql === linkedSql;
    const cold = !duckDBReady();
    status.progress.stage(cold ? "Starting the SQL engine (DuckDB-WASM, loaded once per visit)\u2026"
      : "Loading the tables the query names\u2026");
    holder.setAttribute("data-sql-state", cold ? "starting" : "running");
    const started = performance.now();
    return startDuckDB(viewer.siteRoot).then((engine) => {
      if (cold) {
        holder.setAttribute("data-sql-start-ms", String(Math.round(performance.now() - started)));
        status.progress.stage("The SQL engine has started; loading the tables the query names\u2026");
        holder.setAttribute("data-sql-state", "running");
      }
      return loadTables(viewer, held, engine, tables, sql, (name) => { status.progress.stage("Loading the table " + name + "\u2026"); })
        .then(() => { status.progress.stage("Running the query\u2026"); return engine.conn.query(sql); });
    }).then((answer) => {
      const { names, rows } = resultRows(answer);
      showResult(result, names, rows);
      downloadUrl = URL.createObjectURL(new Blob([csvText(names, rows)], { type: "text/csv" }));
      download.href = downloadUrl;
      download.setAttribute("download", split.dataset + "-" + split.split + "-query.csv");
      download.hidden = false;
      const ms = Math.round(performance.now() - started);
      status.progress.done(fmt(rows.length) + " rows" + (rows.length > RESULT_ROWS ? " (the first " + RESULT_ROWS +
        " shown; the CSV has all)" : "") + " in " + fmt(ms) + " ms" + (cold ? ", the SQL engine's start included" : "") +
        "." + (held.leftOut.length ? " Left out of the tables, having too many distinct values to load here: " +
        held.leftOut.join(", ") + "." : ""));
      holder.setAttribute("data-sql-state", "done");
      holder.setAttribute("data-sql-rows", String(rows.length));
      holder.setAttribute("data-sql-ms", String(ms));
    }, (error) => {
      clearResult();
      const failure = queryFailure(error && error.message ? error.message : String(error), fromLink);
      status.progress.done(failure.lead);
      shownError.textContent = failure.error;
      shownError.hidden = false;
      holder.setAttribute("data-sql-state", "error");
    });
  };

  runButton.addEventListener("click", () => { run(); });
  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { run(); event.preventDefault(); }
  });

  /**
   * A query from a link is the sender's text: shown, and run only when the reader asks.
   * @param {string} sql
   */
  const showLinked = (sql) => {
    linkedSql = sql.trim();
    box.open = true;
    text.value = sql;
    if (sqlConsoleMissing()) { // no engine in this build: say so rather than offer to run it
      status.progress.done(SQL_MISSING);
      holder.setAttribute("data-sql-state", "missing");
    } else {
      pending.hidden = false;
      holder.setAttribute("data-sql-state", "waiting");
    }
  };
  return Object.assign(box, { showLinked, run });
}

/**
 * The tables the console offers, by dataset and split: each name a reader can copy.
 * @param {Table[]} tables
 * @param {SplitEntry} split the split on screen
 * @returns {HTMLElement}
 */
function tableList(tables, split) {
  const box = make("div", "atlas-viewer-note atlas-viewer-sql-tables");
  box.appendChild(make("p", null, "Tables: every split of every dataset this page shows, at each level, as " +
    "<dataset>_<split>_<level> (join them by name); the split on screen is also dialogues, turns and evidence, and the " +
    "splits of " + split.dataset + " also go by <split>_<level>."));
  const all = make("details", "atlas-viewer-tables");
  all.appendChild(make("summary", null, "the " + tables.length + " table names of this page, by split"));
  const list = make("ul", "atlas-viewer-tablelist");
  /** @type {Record<string, Table[]>} */
  const bySplit = keyed();
  /** @type {string[]} */
  const order = [];
  tables.forEach((table) => {
    const key = table.split.dataset + "/" + table.split.split;
    if (!bySplit[key]) { bySplit[key] = []; order.push(key); }
    bySplit[key].push(table);
  });
  order.forEach((key) => {
    const item = make("li");
    item.setAttribute("data-split", key);
    item.appendChild(make("span", null, bySplit[key][0].split.label + " (" + bySplit[key][0].split.dataset + "): "));
    bySplit[key].forEach((table, k) => {
      if (k) { item.appendChild(document.createTextNode(", ")); }
      const code = make("code", "atlas-viewer-tablename", table.name);
      code.setAttribute("data-table", table.name);
      item.appendChild(code);
    });
    list.appendChild(item);
  });
  all.appendChild(list);
  box.appendChild(all);
  return box;
}

/**
 * The tables a query names, loaded into DuckDB (each once, as <dataset>_<split>_<level>; the other
 * names, and dialogues, turns and evidence for the split on screen, are views of them). A level not
 * on screen is loaded for this, then let go here (DuckDB keeps its copy).
 * @param {Viewer} viewer
 * @param {ConsoleState} held
 * @param {Engine} engine
 * @param {Table[]} tables
 * @param {string} sql
 * @param {(name: string) => void} saying
 * @returns {Promise<void>}
 */
export function loadTables(viewer, held, engine, tables, sql, saying) {
  const split = /** @type {SplitEntry} */ (viewer.split);
  const named = tablesNamed(sql, tables.map((table) => table.name).concat(LEVELS));
  /** @type {Array<{name: string, table: Table}>} */
  const wanted = [];
  named.forEach((name) => {
    const table = LEVELS.indexOf(name) !== -1
      ? tables.find((t) => t.split === split && t.level === name && t.name === t.canonical)
      : tables.find((t) => t.name === name);
    if (table) { wanted.push({ name, table }); }
  });
  /** @type {Promise<unknown>} */
  let chain = Promise.resolve();
  /** @type {Set<string>} */
  const making = new Set();
  wanted.forEach(({ table }) => {
    const canonical = table.canonical;
    if (held.loaded[canonical] === canonical || making.has(canonical)) {
      return;
    }
    making.add(canonical);
    chain = chain.then(() => viewer.store.manifest(table.split)).then((manifest) => {
      if (!manifest.levels[table.level]) {
        return null; // a split without this level: its table is not made, and DuckDB says so
      }
      saying(canonical);
      return viewer.store.load(table.split, table.level).then((data) => createLevelView(engine, data, canonical).then((leftOut) => {
        held.loaded[canonical] = canonical;
        leftOut.forEach((name) => { held.leftOut.push(canonical + ": " + name); });
        if (table.split !== viewer.split || table.level !== viewer.view().level) {
          delete viewer.store.entry(table.split).levels[table.level];
        }
      }));
    });
  });
  wanted.forEach(({ name, table }) => {
    if (name === table.canonical || held.loaded[name] === table.canonical) {
      return;
    }
    chain = chain.then(() => {
      if (held.loaded[table.canonical] !== table.canonical) {
        return;
      }
      return engine.conn.query("CREATE OR REPLACE VIEW " + sqlName(name) + " AS SELECT * FROM " + sqlName(table.canonical))
        .then(() => { held.loaded[name] = table.canonical; });
    });
  });
  return chain.then(() => undefined);
}

/**
 * A result as a table: numbers rounded for reading (the full value in the cell's title), lists as JSON.
 * @param {HTMLTableElement} table
 * @param {string[]} names
 * @param {any[][]} rows
 */
export function showResult(table, names, rows) {
  clear(table);
  const head = make("tr");
  names.forEach((name) => { head.appendChild(make("th", null, name)); });
  const thead = make("thead");
  thead.appendChild(head);
  table.appendChild(thead);
  const tbody = make("tbody");
  rows.slice(0, RESULT_ROWS).forEach((row) => {
    const tr = make("tr");
    row.forEach((value, k) => {
      const td = make("td", null, resultText(value));
      td.setAttribute("data-label", names[k]);
      if (typeof value === "number") {
        td.className = "atlas-viewer-number";
        td.setAttribute("data-value", String(value));
        if (!Number.isInteger(value)) { td.title = String(value); }
      }
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  });
  table.appendChild(tbody);
}
