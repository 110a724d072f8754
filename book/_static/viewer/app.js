/* The data viewer of a dataset's splits: controls, the grid, filters, statistics, the open row and
 * the SQL console, over the modules that hold the logic (data.js, filters.js, statistics.js,
 * sql.js, url-state.js). The view is always in the URL's hash, so a link or a reload reproduces
 * it, except that a query from a link is only shown: it runs when the reader presses Run. */

import { button, clear, labelled, make } from "./dom.js";
import {
  cell, cellLater, chunksOf, ensureCodes, ensurePages, fetchJson, fetchManifest, joinFragments, loadAllCodes,
  loadLevelData,
} from "./data.js";
import {
  chipCounts, codeCounts, codesHolding, computeMasks, keepKnownColumns, markFacets, sortRows, valueCounts,
} from "./filters.js";
import {
  SQL_MISSING, createLevelView, extensionRefusal, extensionStatement, loadDuckDB, queryFailure, resultRows,
  sqlConsoleMissing, sqlName, tableName, tablesNamed,
} from "./sql.js";
import { describe, histogramBins, percent } from "./statistics.js";
import { SEARCH_CAP, cellText, codePoints, csvText, fmt, keyed, own } from "./text.js";
import { LEVELS, fullState, writeHash } from "./url-state.js";

/** @typedef {import("./data.js").Column} Column */
/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./data.js").Manifest} Manifest */
/** @typedef {import("./url-state.js").ViewState} ViewState */
/** @typedef {import("./filters.js").Masks} Masks */
/** @typedef {import("./sql.js").Engine} Engine */

/**
 * @typedef {object} SplitEntry a split as a page lists it
 * @property {string} dataset
 * @property {string} split
 * @property {string} label
 * @property {string} path its directory, from the site's root
 */

/**
 * @typedef {object} CacheEntry
 * @property {Promise<Manifest>} [manifest]
 * @property {Record<string, Promise<LevelData>>} levels
 * @property {Record<string, Promise<number[][]>>} html shard -> its dialogues' fragment codes
 * @property {Record<string, Promise<string[]>>} fragments chunk -> its fragments
 */

export const PAGE_SIZE = 25;
/* Rows a chapter's compact view shows at a time. */
export const COMPACT_PAGE_SIZE = 5;
/* A search stops testing further words after this long (and says so): each word scans every
 * distinct value of every searched column. */
export const SEARCH_BUDGET_MS = 1500;

export class Viewer {
  /**
   * @param {HTMLElement} holder
   * @param {SplitEntry[]} splits
   * @param {string} siteRoot
   */
  constructor(holder, splits, siteRoot) {
    this.holder = holder;
    this.splits = splits;
    this.siteRoot = siteRoot;
    /** @type {Record<string, CacheEntry>} */
    this.cache = keyed();
    /** @type {ViewState | null} */
    this.state = null;
    /** @type {LevelData | null} */
    this.data = null;
    /** @type {SplitEntry | null} */
    this.split = null;
    /** @type {Uint32Array} */
    this.matches = new Uint32Array(0);
    /** @type {Record<string, string>} table -> what it holds (split path and level) */
    this.sqlLoaded = keyed();
    /** @type {string[]} */
    this.sqlLeftOut = [];
    /** @type {string | null} */
    this.ownHash = null;
    this.sorting = false;
    this.searchCut = false;
    this.searchStopped = 0;
    this.searchWords = 0;
    /** @type {Array<{column: string, value: string, count: HTMLElement, chip: HTMLElement, input: HTMLInputElement}>} */
    this.chips = [];
    /** @type {Uint8Array | null} */
    this.baseBuffer = null;
    /** @type {string | null} */
    this.downloadUrl = null;
    /** @type {string | null} the query a link brought, as it came: its errors are shown as its own */
    this.linkedSql = null;
    /* A chapter's compact view: a few rows of its splits, each opening the dataset's viewer page
     * (data-viewer-page, from the site's root) at that row; no filters, statistics or SQL. */
    this.compact = holder.classList.contains("atlas-viewer-compact");
    this.pageUrl = siteRoot + (holder.getAttribute("data-viewer-page") || "");
    this.pageSize = this.compact ? COMPACT_PAGE_SIZE : PAGE_SIZE;
  }

  /**
   * The viewer page's address showing ``state`` (a compact view's links).
   * @param {ViewState} state
   * @returns {string}
   */
  pageLink(state) {
    return this.pageUrl + writeHash(state);
  }

  /** The controls above the rows. */
  start() {
    const holder = this.holder;
    holder.hidden = false;
    holder.appendChild(make("div", "atlas-viewer-title", this.compact ? "The rows of this chapter's splits"
      : "Every row of every split: the data viewer"));
    const bar = make("div", "atlas-viewer-bar-top");
    this.splitSelect = make("select", "atlas-viewer-split");
    this.splits.forEach((split, i) => {
      const option = make("option", null, split.label + " (" + split.dataset + ")");
      option.value = String(i);
      /** @type {HTMLSelectElement} */ (this.splitSelect).appendChild(option);
    });
    this.levelSelect = make("select", "atlas-viewer-level");
    LEVELS.forEach((level) => {
      const option = make("option", null, level);
      option.value = level;
      /** @type {HTMLSelectElement} */ (this.levelSelect).appendChild(option);
    });
    this.openButton = button("Open the viewer", "atlas-viewer-open");
    bar.appendChild(labelled("Split", this.splitSelect));
    bar.appendChild(labelled("Rows", this.levelSelect));
    if (!this.compact) {
      bar.appendChild(this.openButton);
    }
    holder.appendChild(bar);
    this.body = make("div", "atlas-viewer-body");
    this.body.hidden = true;
    holder.appendChild(this.body);
    this.status = make("p", "atlas-viewer-status");
    this.status.setAttribute("role", "status");
    holder.appendChild(this.status);
    const splitSelect = this.splitSelect;
    const levelSelect = this.levelSelect;
    this.openButton.addEventListener("click", () => {
      this.go({ split: this.splitKey(this.splits[Number(splitSelect.value)]), level: levelSelect.value || "dialogues" });
    });
    splitSelect.addEventListener("change", () => {
      if (this.state) { // another split, at the same level
        this.go({ split: this.splitKey(this.splits[Number(splitSelect.value)]), level: this.state.level });
      }
    });
    levelSelect.addEventListener("change", () => {
      const state = this.state;
      if (state) { // the search and the filters stay, where the other level has their columns
        this.go({ split: state.split, level: levelSelect.value, q: state.q, facets: state.facets, ranges: state.ranges,
          sort: state.sort, desc: state.desc });
      }
    });
    holder.setAttribute("data-viewer-state", "closed");
    if (this.compact) {
      this.go({ split: this.splitKey(this.splits[0]), level: "dialogues" });
    }
  }

  /**
   * @param {SplitEntry} split
   * @returns {string}
   */
  splitKey(split) {
    return split.dataset + "/" + split.split;
  }

  /**
   * @param {string} key
   * @returns {number}
   */
  findSplit(key) {
    for (let i = 0; i < this.splits.length; i += 1) {
      if (this.splitKey(this.splits[i]) === key) {
        return i;
      }
    }
    return -1;
  }

  /** @returns {ViewState} */
  view() {
    return /** @type {ViewState} */ (this.state);
  }

  /** @returns {LevelData} */
  level() {
    return /** @type {LevelData} */ (this.data);
  }

  /**
   * Show a view (from the URL or a control): loads what it needs first.
   * @param {Partial<ViewState> & {split: string}} partial
   * @param {boolean} [fromHash]
   * @returns {Promise<boolean>}
   */
  go(partial, fromHash) {
    const state = fullState(partial);
    this.searchCut = !!state.searchCut;
    const index = this.findSplit(state.split);
    if (index === -1) {
      return Promise.resolve(false);
    }
    const split = this.splits[index];
    /** @type {HTMLSelectElement} */ (this.splitSelect).value = String(index);
    /** @type {HTMLSelectElement} */ (this.levelSelect).value = state.level;
    const status = /** @type {HTMLElement} */ (this.status);
    this.holder.setAttribute("data-viewer-state", "loading");
    status.textContent = "Loading " + split.label + " (" + state.level + ")\u2026";
    const started = performance.now();
    return this.load(split, state.level).then((data) => {
      this.forgetOtherLevels(split, state.level);
      this.state = state;
      this.data = data;
      this.split = split;
      keepKnownColumns(data.columns, state);
      this.build();
      this.refresh();
      if (!this.sorting) { // else ready once the values sorted by are there
        this.holder.setAttribute("data-viewer-state", "ready");
      }
      this.holder.setAttribute("data-load-ms", String(Math.round(performance.now() - started)));
      if (state.sql && !this.compact) {
        this.showLinkedQuery(state.sql);
      }
      if (state.row !== null && !this.compact) {
        this.openRow(state.row);
      }
      if (fromHash && !this.compact) {
        this.holder.scrollIntoView({ block: "start" });
      }
      return true;
    }, (error) => {
      this.holder.setAttribute("data-viewer-state", "error");
      return this.withheld(split).then((reason) => {
        status.textContent = reason || "The data files of " + split.label + " could not be loaded (" + error.message + ").";
        return false;
      });
    });
  }

  /**
   * Only the level on screen is held: another one is fetched again when the reader opens it.
   * @param {SplitEntry} split
   * @param {string} level
   */
  forgetOtherLevels(split, level) {
    Object.keys(this.cache).forEach((path) => {
      Object.keys(this.cache[path].levels).forEach((other) => {
        if (path !== split.path || other !== level) { delete this.cache[path].levels[other]; }
      });
    });
  }

  /**
   * A query from a link is the sender's text: shown, and run only when the reader asks.
   * @param {string} sql
   */
  showLinkedQuery(sql) {
    this.linkedSql = sql.trim();
    /** @type {HTMLDetailsElement} */ (this.sqlBox).open = true;
    /** @type {HTMLTextAreaElement} */ (this.sqlText).value = sql;
    if (sqlConsoleMissing()) { // no engine in this build: say so rather than offer to run it
      /** @type {HTMLElement} */ (this.sqlStatus).textContent = SQL_MISSING;
      this.holder.setAttribute("data-sql-state", "missing");
    } else {
      /** @type {HTMLElement} */ (this.sqlPending).hidden = false;
      this.holder.setAttribute("data-sql-state", "waiting");
    }
  }

  /**
   * @param {SplitEntry} split
   * @returns {Promise<string | null>}
   */
  withheld(split) {
    return fetch(this.siteRoot + split.path + "withheld.json").then((response) => (response.ok ? response.json() : null))
      .then((info) => (info ? "The rows of " + info.dataset + " are not published with this site: its licence (" +
        info.licence + ") decides, " + info.reason + ". A local build of the book (make book) has the full viewer." : null),
      () => null);
  }

  /**
   * @param {SplitEntry} split
   * @returns {CacheEntry}
   */
  entry(split) {
    return this.cache[split.path] || (this.cache[split.path] = { levels: keyed(), html: keyed(), fragments: keyed() });
  }

  /**
   * @param {SplitEntry} split
   * @returns {Promise<Manifest>}
   */
  manifest(split) {
    const entry = this.entry(split);
    if (!entry.manifest) {
      entry.manifest = fetchManifest(this.siteRoot + split.path + "manifest.json");
      entry.manifest.catch(() => { delete entry.manifest; });
    }
    return entry.manifest;
  }

  /**
   * A level's rows as the viewer holds them (data.js).
   * @param {SplitEntry} split
   * @param {string} level
   * @returns {Promise<LevelData>}
   */
  load(split, level) {
    const entry = this.entry(split);
    return this.manifest(split).then((manifest) => {
      if (!entry.levels[level]) {
        entry.levels[level] = loadLevelData(this.siteRoot + split.path, manifest, level);
      }
      return entry.levels[level];
    }).catch((error) => {
      delete entry.levels[level];
      throw error;
    });
  }

  /**
   * The columns of the grid: those that name a row first (the dataset's ``identifying`` columns of
   * this level), then the others in the files' order; a column without any value is left out.
   * @returns {Column[]}
   */
  visibleColumns() {
    const data = this.level();
    const shown = data.info.columns.filter((column) => column.kind !== "hidden" && column.size > 0)
      .map((column) => data.columns[column.name]);
    const first = own(data.manifest.identifying, data.level) || [];
    /** @param {Column} column */
    const rank = (column) => {
      const at = first.indexOf(column.name);
      return at === -1 ? first.length : at;
    };
    return shown.map((column, k) => ({ column, k })).sort((a, b) => rank(a.column) - rank(b.column) || a.k - b.k)
      .map((pair) => pair.column);
  }

  /** The controls of a loaded level. */
  build() {
    const body = /** @type {HTMLElement} */ (this.body);
    const data = this.level();
    const state = this.view();
    const split = /** @type {SplitEntry} */ (this.split);
    clear(body);
    body.hidden = false;
    const manifest = data.manifest;
    /** @param {string} level */
    const rowsOf = (level) => fmt(manifest.levels[level] ? manifest.levels[level].rows : 0);
    body.appendChild(make("p", "atlas-viewer-about", manifest.title + ", " + split.label + " (" + (manifest.kind || "data") +
      "): " + rowsOf("dialogues") + " dialogue rows, " + rowsOf("turns") + " turns, " + rowsOf("evidence") + " evidence rows."));
    if (manifest.note) {
      body.appendChild(make("p", "atlas-viewer-note", manifest.note));
    }
    const searchRow = make("div", "atlas-viewer-searchrow");
    const searchInput = (this.searchInput = make("input", "atlas-viewer-search"));
    searchInput.type = "search";
    searchInput.placeholder = 'words, ids, glosses, or "an exact phrase"';
    searchInput.maxLength = SEARCH_CAP;
    searchInput.value = state.q;
    searchRow.appendChild(labelled("Search", searchInput));
    this.searchNote = make("span", "atlas-viewer-searchcap", "up to " + SEARCH_CAP + " characters");
    searchRow.appendChild(this.searchNote);
    const reset = button("Clear filters", "atlas-viewer-reset");
    searchRow.appendChild(reset);
    this.count = make("span", "atlas-viewer-count");
    this.count.setAttribute("aria-live", "polite");
    searchRow.appendChild(this.count);
    this.link = make("a", "atlas-viewer-link", "link to this view");
    searchRow.appendChild(this.link);
    body.appendChild(searchRow);
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let typing;
    searchInput.addEventListener("input", () => {
      clearTimeout(typing);
      typing = setTimeout(() => {
        this.searchCut = searchInput.value.length > SEARCH_CAP; // set by a script, past the box's maxlength
        if (this.searchCut) {
          searchInput.value = searchInput.value.slice(0, SEARCH_CAP);
        }
        this.view().q = searchInput.value;
        this.view().page = 0;
        this.refresh();
      }, 150);
    });
    reset.addEventListener("click", () => {
      const view = this.view();
      view.q = "";
      searchInput.value = "";
      view.facets = keyed();
      view.ranges = keyed();
      view.page = 0;
      this.buildFilters();
      this.refresh();
    });

    if (this.compact) {
      this.link.textContent = "open these rows in the data viewer";
      this.link.classList.add("atlas-viewer-open-page");
      body.appendChild(this.scroller(this.table = make("table", "atlas-viewer-grid"), "The rows"));
      this.buildPager(body);
      return;
    }
    this.filters = make("details", "atlas-viewer-filters");
    this.filters.appendChild(make("summary", null, "Filters: labels and ranges"));
    this.filterBox = make("div", "atlas-viewer-filterbox");
    this.filters.appendChild(this.filterBox);
    this.filters.open = window.innerWidth > 700;
    body.appendChild(this.filters);
    this.buildFilters();

    body.appendChild(this.scroller(this.table = make("table", "atlas-viewer-grid"), "The rows"));
    this.buildPager(body);

    this.detail = make("div", "atlas-viewer-detail");
    this.detail.setAttribute("role", "region"); // named by the record it shows
    this.detail.hidden = true;
    body.appendChild(this.detail);

    this.statsBox = make("details", "atlas-viewer-stats");
    this.statsBox.appendChild(make("summary", null, "Column statistics"));
    this.statsBody = make("div", "atlas-viewer-statsbody");
    this.statsBox.appendChild(this.statsBody);
    this.statsBox.addEventListener("toggle", () => { this.drawStats(); });
    body.appendChild(this.statsBox);

    this.buildSql();
  }

  /** @param {HTMLElement} body */
  buildPager(body) {
    const pager = make("div", "atlas-viewer-pager");
    this.prev = button("\u25c0 previous", "atlas-viewer-prev");
    this.next = button("next \u25b6", "atlas-viewer-next");
    this.pageText = make("span", "atlas-viewer-page");
    pager.appendChild(this.prev);
    pager.appendChild(this.pageText);
    pager.appendChild(this.next);
    body.appendChild(pager);
    this.prev.addEventListener("click", () => { this.view().page -= 1; this.refresh(); });
    this.next.addEventListener("click", () => { this.view().page += 1; this.refresh(); });
  }

  /**
   * A region that scrolls sideways, reachable and scrollable by keyboard (a focusable, named region).
   * @param {HTMLElement} content
   * @param {string} name
   * @returns {HTMLElement}
   */
  scroller(content, name) {
    const box = make("div", "atlas-viewer-scroll");
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", name);
    box.appendChild(content);
    return box;
  }

  buildFilters() {
    const box = /** @type {HTMLElement} */ (this.filterBox);
    const data = this.level();
    const state = this.view();
    clear(box);
    this.chips = [];
    this.visibleColumns().forEach((column) => {
      if (column.kind === "label" || column.kind === "labels") {
        const totals = valueCounts(column, codeCounts(column, null, data.rows));
        const names = Object.keys(totals);
        if (!names.length || names.length > 60) {
          return;
        }
        names.sort((a, b) => totals[b] - totals[a] || (a < b ? -1 : a > b ? 1 : 0));
        const group = make("fieldset", "atlas-viewer-facet");
        group.setAttribute("data-column", column.name);
        group.appendChild(make("legend", null, column.name + (column.kind === "labels" ? " (any of a row's labels)" : "")));
        names.forEach((value) => {
          const chip = make("label", "atlas-viewer-chip");
          chip.setAttribute("data-value", value);
          const input = make("input");
          input.type = "checkbox";
          input.checked = (state.facets[column.name] || []).indexOf(value) !== -1;
          const count = make("span", "atlas-viewer-chip-count");
          chip.appendChild(input);
          chip.appendChild(make("span", null, value));
          chip.appendChild(count);
          group.appendChild(chip);
          input.addEventListener("change", () => { this.toggleFacet(column.name, value, input.checked); });
          this.chips.push({ column: column.name, value, count, chip, input });
        });
        box.appendChild(group);
      } else if (column.kind === "number") {
        const group = make("fieldset", "atlas-viewer-range");
        group.setAttribute("data-column", column.name);
        group.appendChild(make("legend", null, column.name));
        const current = state.ranges[column.name] || [null, null];
        ["from", "to"].forEach((end, k) => {
          const input = make("input", "atlas-viewer-range-" + end);
          input.type = "number";
          input.step = "any";
          input.value = current[k] === null ? "" : String(current[k]);
          group.appendChild(labelled(end, input));
          input.addEventListener("change", () => {
            const view = this.view();
            const range = view.ranges[column.name] || [null, null];
            range[k] = input.value === "" ? null : Number(input.value);
            this.setRange(column.name, range);
          });
        });
        box.appendChild(group);
      }
    });
  }

  /**
   * Choose (or drop) a value of a label filter.
   * @param {string} name
   * @param {string} value
   * @param {boolean} on
   */
  toggleFacet(name, value, on) {
    const view = this.view();
    const chosen = (view.facets[name] || []).filter((v) => v !== value);
    if (on) { chosen.push(value); }
    if (chosen.length) { view.facets[name] = chosen; } else { delete view.facets[name]; }
    view.page = 0;
    this.refresh();
  }

  /**
   * Set (or drop, when both ends are null) a range filter, and show it in its fields.
   * @param {string} name
   * @param {Array<number | null>} range
   */
  setRange(name, range) {
    const view = this.view();
    if (range[0] === null && range[1] === null) { delete view.ranges[name]; } else { view.ranges[name] = range; }
    view.page = 0;
    const box = /** @type {HTMLElement} */ (this.filterBox);
    box.querySelectorAll("fieldset.atlas-viewer-range").forEach((group) => {
      if (group.getAttribute("data-column") === name) {
        group.querySelectorAll("input").forEach((input, k) => { input.value = range[k] === null ? "" : String(range[k]); });
      }
    });
    this.refresh();
  }

  /** The columns a search reads: every string column of the row (labels, ids and glosses too), but
   * a lazy one, whose values the browser does not hold for every row.
   * @returns {Column[]} */
  searchable() {
    const data = this.level();
    return Object.keys(data.columns).map((name) => data.columns[name])
      .filter((column) => column.stored !== "number" && !column.lazy);
  }

  refresh() {
    const t0 = performance.now();
    const data = this.level();
    const state = this.view();
    const n = data.rows;
    // one buffer for the level, reused by every refresh: allocating millions of bytes per click
    // leaves the browser holding them long after
    if (!this.baseBuffer || this.baseBuffer.length !== n) {
      this.baseBuffer = new Uint8Array(n);
    }
    const masks = computeMasks(data.columns, n, state, this.searchable(), this.baseBuffer, SEARCH_BUDGET_MS);
    this.searchStopped = masks.stopped;
    this.searchWords = masks.words;
    markFacets(masks, n);
    this.matches = this.sortedRows(masks.base);
    const count = this.matches.length;
    this.updateChips(masks);
    this.holder.setAttribute("data-refresh-ms", String(Math.round(performance.now() - t0)));
    const pages = Math.max(1, Math.ceil(count / this.pageSize));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    this.drawGrid();
    /** @type {HTMLElement} */ (this.count).textContent = fmt(count) + " of " + fmt(n) + " " + data.level + " rows match";
    this.holder.setAttribute("data-matches", String(count));
    this.holder.setAttribute("data-rows", String(n));
    this.showSearchLimits();
    /** @type {HTMLElement} */ (this.pageText).textContent = "page " + fmt(state.page + 1) + " of " + fmt(pages);
    /** @type {HTMLButtonElement} */ (this.prev).disabled = state.page === 0;
    /** @type {HTMLButtonElement} */ (this.next).disabled = state.page >= pages - 1;
    if (!this.sorting) { /** @type {HTMLElement} */ (this.status).textContent = ""; }
    this.drawStats();
    this.saveHash();
  }

  /** Next to the search box: its cap, and whether this search was cut or stopped early. */
  showSearchLimits() {
    let text = "up to " + SEARCH_CAP + " characters";
    if (this.searchCut) {
      text = "cut to its first " + SEARCH_CAP + " characters, the most a search reads";
    }
    if (this.searchStopped) {
      text += "; stopped after " + SEARCH_BUDGET_MS / 1000 + " s: the rows shown hold its first " +
        fmt(this.searchStopped) + " of " + fmt(this.searchWords) + " words";
    }
    /** @type {HTMLElement} */ (this.searchNote).textContent = "(" + text + ")";
    this.holder.setAttribute("data-search", this.view().q);
    this.holder.setAttribute("data-search-cut", this.searchCut ? "1" : "0");
    this.holder.setAttribute("data-search-stopped", String(this.searchStopped || 0));
  }

  /**
   * The matching rows in the order of the column sorted by. A lazy column's codes for every row are
   * fetched first, then the rows sorted again.
   * @param {Uint8Array} keep
   * @returns {Uint32Array}
   */
  sortedRows(keep) {
    const data = this.level();
    const state = this.view();
    let column = state.sort ? data.columns[state.sort] : null;
    if (column && !column.codes) {
      const lazy = column;
      const status = /** @type {HTMLElement} */ (this.status);
      status.textContent = "Loading every value of " + lazy.name + " to sort by it\u2026";
      this.holder.setAttribute("data-viewer-state", "loading");
      this.sorting = true;
      loadAllCodes(lazy).then(() => {
        this.sorting = false;
        if (this.data === data) {
          this.refresh();
          this.holder.setAttribute("data-viewer-state", "ready");
        }
      }, (error) => {
        this.sorting = false;
        status.textContent = "The values of " + lazy.name + " could not be loaded (" + error.message + ").";
        this.holder.setAttribute("data-viewer-state", "ready");
      });
      column = null;
    }
    return sortRows(keep, column ? column.codes : null, column ? column.size : 0, state.desc);
  }

  /** @param {Masks} masks */
  updateChips(masks) {
    const data = this.level();
    const state = this.view();
    const names = Array.from(new Set(this.chips.map((chip) => chip.column)));
    const counts = chipCounts(data.columns, data.rows, masks, names);
    this.chips.forEach((chip) => {
      const perValue = counts[chip.column];
      const n = (perValue && perValue[chip.value]) || 0;
      chip.count.textContent = fmt(n);
      chip.chip.setAttribute("data-count", String(n));
      chip.chip.classList.toggle("atlas-viewer-chip-empty", n === 0);
      chip.input.checked = (state.facets[chip.column] || []).indexOf(chip.value) !== -1;
    });
  }

  drawGrid() {
    const data = this.level();
    const state = this.view();
    const table = /** @type {HTMLTableElement} */ (this.table);
    clear(table);
    const columns = this.visibleColumns();
    const head = make("thead");
    const headRow = make("tr");
    columns.forEach((column) => {
      const th = make("th");
      th.setAttribute("data-column", column.name);
      const sortButton = button(column.name, "atlas-viewer-sort");
      const sorted = state.sort === column.name;
      th.setAttribute("aria-sort", sorted ? (state.desc ? "descending" : "ascending") : "none");
      if (sorted) { sortButton.textContent = column.name + (state.desc ? " \u25bc" : " \u25b2"); }
      sortButton.title = "sort by " + column.name;
      sortButton.addEventListener("click", () => {
        if (state.sort === column.name) {
          state.desc = !state.desc;
        } else {
          state.sort = column.name;
          state.desc = false;
        }
        state.page = 0;
        this.refresh();
      });
      th.appendChild(sortButton);
      headRow.appendChild(th);
    });
    head.appendChild(headRow);
    table.appendChild(head);
    const tbody = make("tbody");
    const start = state.page * this.pageSize;
    const idColumn = data.columns[data.info.id];
    const shown = Array.from(this.matches.subarray(start, start + this.pageSize));
    /** @type {Column[]} */
    const waiting = [];
    shown.forEach((rowIndex) => {
      const tr = make("tr", "atlas-viewer-row");
      tr.tabIndex = 0;
      tr.setAttribute("data-row", String(rowIndex));
      tr.setAttribute("data-id", String(cell(idColumn, rowIndex)));
      columns.forEach((column) => {
        const value = cell(column, rowIndex);
        if (value === undefined && waiting.indexOf(column) === -1) { waiting.push(column); }
        const text = value === undefined ? "\u2026" : cellText(value);
        const td = make("td", "atlas-viewer-" + column.kind, text.length > 160 ? text.slice(0, 159) + "\u2026" : text);
        if (text.length > 160) { td.title = text; }
        tr.appendChild(td);
      });
      tr.addEventListener("click", () => { this.openRowAt(rowIndex); });
      // by keyboard, the opened record takes the focus (it is drawn below the page's rows and the pager,
      // where a keyboard reader would otherwise have to tab to it)
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter") { this.openRowAt(rowIndex, true); event.preventDefault(); }
      });
      tbody.appendChild(tr);
    });
    table.appendChild(tbody);
    this.holder.setAttribute("data-grid-waiting", String(waiting.length));
    // the codes of lazy columns and the values of paged ones for these rows: fetched, then the same
    // page drawn again
    const matches = this.matches;
    const page = state.page;
    columns.filter((column) => column.lazy).forEach((column) => {
      ensureCodes(column, shown).then((fetchedCodes) => ensurePages(column, shown).then((fetched) => fetched || fetchedCodes))
        .then((fetched) => {
          if (fetched && this.matches === matches && this.view().page === page) {
            this.drawGrid();
          }
        }, (error) => {
          /** @type {HTMLElement} */ (this.status).textContent = "The values of " + column.name + " could not be loaded (" +
            error.message + ").";
        });
    });
  }

  saveHash() {
    if (this.compact) { // a chapter's address stays the chapter's: the link opens the viewer page
      /** @type {HTMLAnchorElement} */ (this.link).setAttribute("href", this.pageLink({ ...this.view(), row: null }));
      return;
    }
    const hash = writeHash(this.view());
    /** @type {HTMLAnchorElement} */ (this.link).setAttribute("href", hash);
    if (window.location.hash !== hash) {
      this.ownHash = hash;
      history.replaceState(null, "", hash);
    }
  }

  /* -- the open row ------------------------------------------------------------------------------ */

  /**
   * Open the row with the id ``id`` (else the row holding it: a record a row groups, a KILT example).
   * @param {string} id
   * @returns {Promise<void>}
   */
  openRow(id) {
    const data = this.level();
    const ids = data.columns[data.info.id];
    let at = -1;
    const code = ids.dict && ids.codes ? ids.dict.indexOf(id) : -1;
    for (let i = 0; code !== -1 && ids.codes && i < data.rows && at === -1; i += 1) {
      if (ids.codes[i] === code) { at = i; }
    }
    if (at === -1) {
      const needle = String(id).toLowerCase();
      /** @type {Array<[Uint8Array, import("./data.js").Codes]>} */
      const hits = [];
      this.searchable().forEach((column) => {
        const found = codesHolding(column, needle);
        if (found && column.codes) { hits.push([found, column.codes]); }
      });
      for (let j = 0; j < data.rows && at === -1 && hits.length; j += 1) {
        for (let c = 0; c < hits.length; c += 1) {
          if (hits[c][0][hits[c][1][j]]) { at = j; break; }
        }
      }
    }
    const detail = /** @type {HTMLElement} */ (this.detail);
    if (at === -1) {
      detail.hidden = false;
      clear(detail);
      detail.appendChild(make("p", "atlas-viewer-note", "No row of " + /** @type {SplitEntry} */ (this.split).label +
        " has the id " + id + "."));
      return Promise.resolve();
    }
    return this.openRowAt(at);
  }

  /**
   * @param {number} rowIndex
   * @param {boolean} [focus] move the focus to the opened record (opened by keyboard)
   * @returns {Promise<void>}
   */
  openRowAt(rowIndex, focus = false) {
    const data = this.level();
    const id = cell(data.columns[data.info.id], rowIndex);
    if (this.compact) { // the row opens in the viewer page, at the same split, level and row
      window.location.assign(this.pageLink({ ...this.view(), page: 0, row: String(id) }));
      return Promise.resolve();
    }
    this.view().row = String(id);
    this.saveHash();
    return cellLater(data.columns._dialogue, rowIndex).then((dialogue) => this.showDialogue(Number(dialogue), String(id),
      focus));
  }

  /**
   * The dialogue as the atlas renders it.
   * @param {number} dialogue its position in the split
   * @param {string} id
   * @param {boolean} [focus] move the focus to it (and back to its row when it is closed)
   * @returns {Promise<void>}
   */
  showDialogue(dialogue, id, focus = false) {
    const data = this.level();
    const split = /** @type {SplitEntry} */ (this.split);
    const entry = this.entry(split);
    const files = data.manifest.html;
    const base = this.siteRoot + split.path;
    const per = files.per_shard;
    const shard = Math.floor(dialogue / per);
    if (!entry.html[shard]) {
      entry.html[shard] = fetchJson(base + files.shards[shard]);
      entry.html[shard].catch(() => { delete entry.html[shard]; });
    }
    const detail = /** @type {HTMLElement} */ (this.detail);
    return entry.html[shard].then((list) => {
      const codes = list[dialogue - shard * per];
      /** @type {Record<string, string[]>} */
      const chunks = keyed();
      return Promise.all(chunksOf(codes, files.chunk).map((k) => {
        if (!entry.fragments[k]) {
          entry.fragments[k] = fetchJson(base + files.fragments[k]);
          entry.fragments[k].catch(() => { delete entry.fragments[k]; });
        }
        return entry.fragments[k].then((part) => { chunks[k] = part; });
      })).then(() => joinFragments(codes, chunks, files.chunk));
    }).then((rendering) => {
      clear(detail);
      detail.hidden = false;
      const head = make("div", "atlas-viewer-detail-head");
      head.appendChild(make("strong", null, split.label + ": " + data.info.id + " " + id));
      const close = button("close", "atlas-viewer-close");
      close.addEventListener("click", () => {
        detail.hidden = true;
        this.view().row = null;
        this.saveHash();
        if (focus) { // back where the keyboard reader opened it, when that row is still on the page
          const row = this.holder.querySelector(".atlas-viewer-grid tbody tr[data-id='" + CSS.escape(String(id)) + "']");
          if (row instanceof HTMLElement) { row.focus(); }
        }
      });
      head.appendChild(close);
      detail.appendChild(head);
      const view = make("div", "atlas-viewer-rendering");
      view.innerHTML = rendering; // rendered and escaped by the atlas's renderers, joined from its fragments
      detail.appendChild(view);
      detail.setAttribute("data-id", String(id));
      detail.setAttribute("aria-label", split.label + ": " + data.info.id + " " + id);
      if (focus) {
        detail.tabIndex = -1; // focusable by script, not a stop of its own in the tab order
        detail.scrollIntoView({ block: "start" });
        detail.focus({ preventScroll: true });
      } else {
        detail.scrollIntoView({ block: "nearest" });
      }
    });
  }

  /* -- column statistics ------------------------------------------------------------------------- */

  /** The columns that get a panel: not the row's id, not a column without any value, not a list of
   * ids (labels each held by one row only: KILT's example ids).
   * @returns {Column[]} */
  statColumns() {
    const data = this.level();
    return this.visibleColumns().filter((column) => column.kind !== "id" && column.name !== data.info.id &&
      column.size > 0 && !this.holdsIds(column));
  }

  /**
   * True for a label column of more than a few values each held by one row (ids, not categories).
   * @param {Column} column
   * @returns {boolean}
   */
  holdsIds(column) {
    if ((column.kind !== "label" && column.kind !== "labels") || column.size <= 60 || !column.codes) {
      return false;
    }
    const counts = valueCounts(column, codeCounts(column, null, this.level().rows));
    return Object.keys(counts).every((value) => counts[value] === 1);
  }

  drawStats() {
    const box = this.statsBox;
    if (!box || !box.open) {
      return;
    }
    const body = /** @type {HTMLElement} */ (this.statsBody);
    const data = this.level();
    const rows = this.matches;
    clear(body);
    body.appendChild(make("p", "atlas-viewer-note",
      "Of the " + fmt(rows.length) + " matching " + data.level + " rows (of " + fmt(data.rows) + " in the split). " +
      "Numbers: min, max, mean, median, standard deviation (n \u2212 1) and a histogram (click a bar to filter); " +
      "text and lists: their lengths; labels: every value with its count (click one to filter); and the share of " +
      "empty values."));
    this.statColumns().forEach((column) => { body.appendChild(this.statPanel(column, rows)); });
  }

  /**
   * @param {Column} column
   * @param {Uint32Array} rows
   * @returns {HTMLElement}
   */
  statPanel(column, rows) {
    const data = this.level();
    const box = make("div", "atlas-viewer-stat");
    box.setAttribute("data-column", column.name);
    box.setAttribute("data-kind", column.kind);
    box.appendChild(make("div", "atlas-viewer-stat-title", column.name + " (" + column.kind + ")"));
    const note = (data.manifest.column_notes || {})[column.name];
    if (note) { box.appendChild(make("div", "atlas-viewer-stat-note", note)); }
    if (column.paged) {
      // its values are not held here: the lengths over the split were computed with the files
      if (rows.length === data.rows && column.splitLengths) {
        this.numberSummary(box, column, /** @type {any} */ (column.splitLengths), 0, rows.length);
      } else {
        box.appendChild(make("div", "atlas-viewer-stat-summary", "not computed for a filter: " + fmt(column.size) +
          " distinct values, fetched only for the rows on screen"));
      }
      return box;
    }
    const perCode = codeCounts(column, rows.length === data.rows ? null : rows, data.rows);
    const missing = perCode[column.size];
    const dict = column.dict || [];
    if (column.kind !== "label") {
      const measure = column.kind === "number" ? (/** @type {any} */ v) => v
        : column.kind === "labels" ? (/** @type {any} */ v) => v.length : (/** @type {any} */ v) => codePoints(String(v));
      const numbers = new Float64Array(rows.length - missing);
      for (let k = 0, at = 0; k < column.size; k += 1) {
        if (!perCode[k]) { continue; }
        numbers.fill(measure(dict[k]), at, at + perCode[k]);
        at += perCode[k];
      }
      this.numberSummary(box, column, describe(numbers), missing, rows.length);
    }
    if (column.kind === "label" || column.kind === "labels") {
      const counts = valueCounts(column, perCode);
      const list = make("ul", "atlas-viewer-values");
      const chosen = this.view().facets[column.name] || [];
      Object.keys(counts).sort((a, b) => counts[b] - counts[a] || (a < b ? -1 : a > b ? 1 : 0)).forEach((value) => {
        const li = make("li");
        li.setAttribute("data-value", value);
        li.setAttribute("data-count", String(counts[value]));
        const pick = button(value, "atlas-viewer-value");
        pick.title = "show only the rows with " + column.name + " " + value;
        pick.setAttribute("aria-pressed", chosen.indexOf(value) !== -1 ? "true" : "false");
        pick.addEventListener("click", () => { this.toggleFacet(column.name, value, chosen.indexOf(value) === -1); });
        const track = make("span", "atlas-viewer-track");
        const fill = make("span", "atlas-viewer-fill");
        fill.style.width = (100 * counts[value]) / Math.max(rows.length, 1) + "%";
        track.appendChild(fill);
        li.appendChild(pick);
        li.appendChild(track);
        li.appendChild(make("span", "atlas-viewer-number", fmt(counts[value])));
        list.appendChild(li);
      });
      if (missing) {
        list.appendChild(make("li", "atlas-viewer-missing", "empty: " + fmt(missing) + " (" + percent(missing, rows.length) + ")"));
      }
      box.appendChild(list);
    }
    return box;
  }

  /**
   * A summary line and a histogram with axes; a bar of a number column filters on a click.
   * @param {HTMLElement} box
   * @param {Column} column
   * @param {import("./statistics.js").Summary} stats
   * @param {number} missing
   * @param {number} total
   */
  numberSummary(box, column, stats, missing, total) {
    ["count", "min", "max", "mean", "median", "std"].forEach((key) => {
      const value = /** @type {any} */ (stats)[key];
      if (value !== undefined && value !== null) { box.setAttribute("data-" + key, String(value)); }
    });
    box.setAttribute("data-missing", String(missing));
    const what = column.kind === "number" ? "" : column.kind === "labels" ? "labels per row: " : "length (characters, spaces included): ";
    box.appendChild(make("div", "atlas-viewer-stat-summary", what + (stats.count ?
      "min " + fmt(stats.min) + " \u00b7 max " + fmt(stats.max) + " \u00b7 mean " + fmt(stats.mean) +
      " \u00b7 median " + fmt(stats.median) + " \u00b7 std " + fmt(stats.std) + " \u00b7 " + fmt(stats.count) + " values"
      : "no values") + " \u00b7 empty: " + fmt(missing) + " (" + percent(missing, total) + ")"));
    if (stats.sorted && stats.count) {
      box.appendChild(this.histogram(column, stats.sorted));
    }
  }

  /**
   * @param {Column} column
   * @param {Float64Array} sorted
   * @returns {HTMLElement}
   */
  histogram(column, sorted) {
    const { bins, integers } = histogramBins(sorted);
    const clickable = column.kind === "number";
    const figure = make("div", "atlas-viewer-hist");
    /** @param {import("./statistics.js").Bin} bin */
    const span = (bin) => (integers && bin.from === bin.to ? fmt(bin.from) : fmt(bin.from) + "\u2013" + fmt(bin.to));
    const top = Math.max(...bins.map((bin) => bin.count));
    const what = column.kind === "number" ? column.name : column.kind === "labels" ? "labels per row" : "length";
    const plot = make("div", "atlas-viewer-plot");
    const yAxis = make("div", "atlas-viewer-yaxis");
    yAxis.setAttribute("aria-hidden", "true");
    yAxis.appendChild(make("span", null, fmt(top)));
    yAxis.appendChild(make("span", null, "0"));
    plot.appendChild(yAxis);
    const bars = make("div", "atlas-viewer-bars");
    bars.setAttribute("role", clickable ? "group" : "img");
    bars.setAttribute("aria-label", "histogram of " + what + " (" + column.name + "): " +
      bins.map((bin) => span(bin) + ": " + bin.count).join(", "));
    bins.forEach((bin) => {
      const label = what + " " + span(bin) + ": " + fmt(bin.count) + " rows";
      const bar = clickable ? button("", "atlas-viewer-bar") : make("span", "atlas-viewer-bar");
      bar.style.height = (top ? (100 * bin.count) / top : 0) + "%";
      bar.title = label + (clickable ? " (click to show only these)" : "");
      bar.setAttribute("data-from", String(bin.from));
      bar.setAttribute("data-to", String(bin.to));
      bar.setAttribute("data-count", String(bin.count));
      if (clickable) {
        bar.setAttribute("aria-label", label + ", filter to these");
        bar.addEventListener("click", () => { this.setRange(column.name, [bin.from, bin.to]); });
      }
      bars.appendChild(bar);
    });
    plot.appendChild(bars);
    figure.appendChild(plot);
    const xAxis = make("div", "atlas-viewer-xaxis");
    xAxis.setAttribute("aria-hidden", "true");
    xAxis.appendChild(make("span", null, fmt(bins[0].from)));
    xAxis.appendChild(make("span", "atlas-viewer-axis-name", what));
    xAxis.appendChild(make("span", null, fmt(sorted[sorted.length - 1])));
    figure.appendChild(xAxis);
    return figure;
  }

  /* -- SQL console ------------------------------------------------------------------------------- */

  /** The tables every split and level of this page gives: <split>_<level>.
   * @returns {Array<{name: string, split: SplitEntry, level: string}>} */
  sqlCatalogue() {
    /** @type {Array<{name: string, split: SplitEntry, level: string}>} */
    const tables = [];
    const dataset = /** @type {SplitEntry} */ (this.split).dataset;
    this.splits.filter((split) => split.dataset === dataset).forEach((split) => {
      LEVELS.forEach((level) => { tables.push({ name: tableName(split.split, level), split, level }); });
    });
    return tables;
  }

  buildSql() {
    const box = (this.sqlBox = make("details", "atlas-viewer-sql"));
    const data = this.level();
    const missing = sqlConsoleMissing();
    box.appendChild(make("summary", null, "SQL console (DuckDB, in your browser)" + (missing ? ": not in this build" : "")));
    if (missing) {
      box.appendChild(make("p", "atlas-viewer-note atlas-viewer-sql-missing", SQL_MISSING));
    }
    const names = this.sqlCatalogue().map((table) => table.name);
    box.appendChild(make("p", "atlas-viewer-note atlas-viewer-sql-tables",
      "Tables: every split and level as <split>_<level> (" + names.join(", ") + "), and dialogues, turns and evidence " +
      "for the split on screen, with the columns of the grid (label columns holding lists: unnest or list_contains " +
      "them). A table is loaded when a query first names it. DuckDB-WASM is served by this book and runs in your " +
      "browser, closed to the network: a query reads only these tables (no file, URL or extension is read, written " +
      "or fetched), so nothing leaves your browser."));
    const examples = make("select", "atlas-viewer-examples");
    const none = make("option", null, "example queries\u2026");
    none.value = "";
    examples.appendChild(none);
    (data.manifest.queries || []).forEach((query, i) => {
      const option = make("option", null, query.title);
      option.value = String(i);
      examples.appendChild(option);
    });
    box.appendChild(labelled("Example", examples));
    const text = (this.sqlText = make("textarea", "atlas-viewer-sqltext"));
    text.rows = 5;
    text.spellcheck = false;
    text.setAttribute("aria-label", "SQL query");
    text.value = this.view().sql || "SELECT * FROM " + data.level + " LIMIT 10";
    box.appendChild(text);
    const run = button("Run", "atlas-viewer-run");
    box.appendChild(run);
    this.sqlPending = make("span", "atlas-viewer-note atlas-viewer-sqlpending",
      "This query came with the link and has not run: it runs only when you press Run.");
    this.sqlPending.hidden = true;
    box.appendChild(this.sqlPending);
    this.download = make("a", "atlas-viewer-download", "download the result as CSV");
    this.download.hidden = true;
    this.download.setAttribute("download", "query-result.csv");
    box.appendChild(this.download);
    this.sqlStatus = make("p", "atlas-viewer-sqlstatus");
    this.sqlStatus.setAttribute("role", "status");
    box.appendChild(this.sqlStatus);
    // DuckDB's error, apart from the console's words: a query (a link's) can make it say anything
    this.sqlError = make("pre", "atlas-viewer-sqlerror");
    this.sqlError.hidden = true;
    box.appendChild(this.sqlError);
    box.appendChild(this.scroller(this.sqlResult = make("table", "atlas-viewer-grid atlas-viewer-result"), "The query's result"));
    examples.addEventListener("change", () => {
      const query = (data.manifest.queries || [])[Number(examples.value)];
      if (examples.value !== "" && query) {
        text.value = query.sql;
      }
    });
    run.addEventListener("click", () => { this.runSql(); });
    text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { this.runSql(); event.preventDefault(); }
    });
    /** @type {HTMLElement} */ (this.body).appendChild(box);
  }

  /**
   * The tables a query names, loaded into DuckDB (each once; the aliases dialogues, turns and
   * evidence pointed at the split on screen). A level not on screen is loaded for this, then let go
   * here (DuckDB keeps its copy).
   * @param {Engine} engine
   * @param {string} sql
   * @returns {Promise<void>}
   */
  sqlTables(engine, sql) {
    const split = /** @type {SplitEntry} */ (this.split);
    const catalogue = this.sqlCatalogue();
    const named = tablesNamed(sql, catalogue.map((table) => table.name).concat(LEVELS));
    /** @type {Array<{name: string, split: SplitEntry, level: string}>} */
    const wanted = [];
    named.forEach((name) => {
      const alias = LEVELS.indexOf(name) !== -1;
      const table = alias ? catalogue.find((t) => t.split === split && t.level === name)
        : catalogue.find((t) => t.name === name);
      if (table && wanted.indexOf(table) === -1) { wanted.push(table); }
    });
    /** @type {Promise<unknown>} */
    let chain = Promise.resolve();
    wanted.forEach((table) => {
      if (this.sqlLoaded[table.name]) {
        return;
      }
      chain = chain.then(() => this.manifest(table.split)).then((manifest) => {
        if (!manifest.levels[table.level]) {
          return null; // a split without this level: its table is not made, and DuckDB says so
        }
        return this.load(table.split, table.level).then((data) => createLevelView(engine, data, table.name).then((leftOut) => {
          this.sqlLoaded[table.name] = table.split.path + table.level;
          leftOut.forEach((name) => { this.sqlLeftOut.push(table.name + ": " + name); });
          const view = this.view();
          if (table.split !== this.split || table.level !== view.level) {
            delete this.entry(table.split).levels[table.level];
          }
        }));
      });
    });
    LEVELS.forEach((level) => {
      if (named.indexOf(level) === -1 || this.sqlLoaded[level] === split.path + level) {
        return;
      }
      const target = tableName(split.split, level);
      chain = chain.then(() => {
        if (!this.sqlLoaded[target]) {
          return;
        }
        return engine.conn.query("CREATE OR REPLACE VIEW " + sqlName(level) + " AS SELECT * FROM " + sqlName(target))
          .then(() => { this.sqlLoaded[level] = split.path + level; });
      });
    });
    return chain.then(() => undefined);
  }

  /** Clear the result and its CSV link (before a query runs, so a failed one leaves no old result). */
  clearResult() {
    clear(/** @type {HTMLTableElement} */ (this.sqlResult));
    const error = /** @type {HTMLElement} */ (this.sqlError);
    error.hidden = true;
    error.textContent = "";
    const download = /** @type {HTMLAnchorElement} */ (this.download);
    download.hidden = true;
    download.removeAttribute("href");
    if (this.downloadUrl) {
      URL.revokeObjectURL(this.downloadUrl);
      this.downloadUrl = null;
    }
    this.holder.removeAttribute("data-sql-rows");
  }

  /** @returns {Promise<void>} */
  runSql() {
    const text = /** @type {HTMLTextAreaElement} */ (this.sqlText);
    const status = /** @type {HTMLElement} */ (this.sqlStatus);
    const sql = text.value.trim();
    if (!sql) {
      return Promise.resolve();
    }
    this.view().sql = sql;
    /** @type {HTMLElement} */ (this.sqlPending).hidden = true;
    this.saveHash();
    this.clearResult();
    if (sqlConsoleMissing()) {
      status.textContent = SQL_MISSING;
      this.holder.setAttribute("data-sql-state", "missing");
      return Promise.resolve();
    }
    const extension = extensionStatement(sql);
    if (extension) { // refused before DuckDB answers: DuckDB-WASM would say "Success" to INSTALL
      status.textContent = extensionRefusal(extension);
      this.holder.setAttribute("data-sql-state", "error");
      return Promise.resolve();
    }
    const fromLink = sql === this.linkedSql;
    status.textContent = "Starting DuckDB and loading the tables the query names\u2026";
    this.holder.setAttribute("data-sql-state", "running");
    const started = performance.now();
    return loadDuckDB(this.siteRoot).then((engine) => this.sqlTables(engine, sql).then(() => engine.conn.query(sql)))
      .then((result) => {
        const { names, rows } = resultRows(result);
        this.showResult(names, rows);
        const split = /** @type {SplitEntry} */ (this.split);
        const download = /** @type {HTMLAnchorElement} */ (this.download);
        this.downloadUrl = URL.createObjectURL(new Blob([csvText(names, rows)], { type: "text/csv" }));
        download.href = this.downloadUrl;
        download.setAttribute("download", split.dataset + "-" + split.split + "-query.csv");
        download.hidden = false;
        status.textContent = fmt(rows.length) + " rows" + (rows.length > 500 ? " (the first 500 shown; the CSV has all)" : "") +
          " in " + fmt(Math.round(performance.now() - started)) + " ms." + (this.sqlLeftOut.length ? " Left out of the tables, " +
          "having too many distinct values to load here: " + this.sqlLeftOut.join(", ") + "." : "");
        this.holder.setAttribute("data-sql-state", "done");
        this.holder.setAttribute("data-sql-rows", String(rows.length));
      }, (error) => {
        this.clearResult();
        const failure = queryFailure(error && error.message ? error.message : String(error), fromLink);
        status.textContent = failure.lead;
        const shown = /** @type {HTMLElement} */ (this.sqlError);
        shown.textContent = failure.error;
        shown.hidden = false;
        this.holder.setAttribute("data-sql-state", "error");
      });
  }

  /**
   * @param {string[]} names
   * @param {any[][]} rows
   */
  showResult(names, rows) {
    const table = /** @type {HTMLTableElement} */ (this.sqlResult);
    clear(table);
    const head = make("tr");
    names.forEach((name) => { head.appendChild(make("th", null, name)); });
    const thead = make("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    const tbody = make("tbody");
    rows.slice(0, 500).forEach((row) => {
      const tr = make("tr");
      row.forEach((value) => {
        tr.appendChild(make("td", null, value === null ? "" : typeof value === "object" ? JSON.stringify(value) : value));
      });
      tbody.appendChild(tr);
    });
    table.appendChild(tbody);
  }
}
