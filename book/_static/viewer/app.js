/* The data viewer of a dataset's splits: the controls, the grid, the filters and the open row, wiring
 * the modules that hold the logic (data.js, filters.js, statistics.js, sql.js, url-state.js) and the
 * parts each built by a function returning its element (pager.js, scroller.js, stat-panels.js,
 * sql-console.js, download.js, embed.js, every-split.js, compare.js, labels.js). The view is always
 * in the URL's hash, so a link or a reload reproduces it, except that a query from a link is only
 * shown: it runs when the reader presses Run. */

import { button, clear, labelled, make } from "./dom.js";
import {
  cell, cellLater, chunksOf, ensureCodes, ensurePages, fetchJson, fetchManifest, joinFragments, loadAllCodes,
  loadLevelData,
} from "./data.js";
import {
  chipCounts, codeCounts, codesHolding, computeMasks, keepKnownColumns, markFacets, sortRows, valueCounts,
} from "./filters.js";
import { pinnedPane, sideBySide } from "./compare.js";
import { downloadBox } from "./download.js";
import { embedBox } from "./embed.js";
import { everySplit } from "./every-split.js";
import { cssToken, labelBadges } from "./labels.js";
import { PAGE_SIZES, pager } from "./pager.js";
import { scroller } from "./scroller.js";
import { consoleState, sqlConsole } from "./sql-console.js";
import { statPanel } from "./stat-panels.js";
import { SEARCH_CAP, cellText, fmt, keyed, own } from "./text.js";
import { LEVELS, fullState, writeHash } from "./url-state.js";

/** @typedef {import("./data.js").Column} Column */
/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./data.js").Manifest} Manifest */
/** @typedef {import("./url-state.js").ViewState} ViewState */
/** @typedef {import("./filters.js").Masks} Masks */

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

export const PAGE_SIZE = 100;
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
    /* what DuckDB holds, across the consoles of the levels shown */
    this.sqlHeld = consoleState();
    /** @type {ReturnType<typeof sqlConsole> | null} */
    this.sql = null;
    /** @type {HTMLElement | null} the dialogue pinned beside the open one */
    this.pinned = null;
    /* the panel of filters, downloads and notes: closed until the reader opens it (or a link filters) */
    this.toolsOpen = false;
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
    if (this.compact) { // a viewer page's title is the page's
      holder.appendChild(make("div", "atlas-viewer-title", "The rows of this chapter's splits"));
    }
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
    /* the search, the count and the link: one line with the split's controls (filled by build) */
    this.searchSlot = make("div", "atlas-viewer-searchrow");
    bar.appendChild(this.searchSlot);
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
      /** @type {HTMLButtonElement} */ (this.openButton).hidden = true;
      if (state.sql && this.sql) {
        this.sql.showLinked(state.sql);
      }
      if (!state.pin) { this.pinned = null; } // a pin belongs to its split's view (and to its link)
      if (state.pin && !this.compact) { // the pinned row first, then the open one beside it
        const row = state.row;
        const pinned = state.pin;
        this.openRow(pinned).then(() => { this.pinOpen(); return row !== null ? this.openRow(row) : undefined; });
      } else if (state.row !== null && !this.compact) {
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

  /** The controls of a loaded level: the search on the split's line; the filters, downloads, embedding
   * and notes in a panel the reader opens; then the rows, so that they are the first screen. */
  build() {
    const body = /** @type {HTMLElement} */ (this.body);
    const data = this.level();
    const state = this.view();
    const split = /** @type {SplitEntry} */ (this.split);
    clear(body);
    body.hidden = false;
    const manifest = data.manifest;
    const searchRow = /** @type {HTMLElement} */ (this.searchSlot);
    clear(searchRow);
    const searchInput = (this.searchInput = make("input", "atlas-viewer-search"));
    searchInput.type = "search";
    searchInput.placeholder = 'words, ids, glosses, or "an exact phrase"';
    searchInput.maxLength = SEARCH_CAP;
    searchInput.value = state.q;
    searchRow.appendChild(labelled("Search", searchInput));
    this.count = make("span", "atlas-viewer-count");
    this.count.setAttribute("aria-live", "polite");
    searchRow.appendChild(this.count);
    const reset = button("Clear filters", "atlas-viewer-reset");
    searchRow.appendChild(reset);
    const every = button("search every split", "atlas-viewer-every-run");
    every.title = "the search in every split of " + split.dataset + ", at this level";
    if (!this.compact) { searchRow.appendChild(every); }
    this.link = make("a", "atlas-viewer-link", "link to this view");
    searchRow.appendChild(this.link);
    searchInput.title = "up to " + SEARCH_CAP + " characters";
    // said next to the box when a search was cut or stopped early (see showSearchLimits)
    searchRow.appendChild(this.searchNote = make("span", "atlas-viewer-searchcap"));
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
    /** @param {string} level */
    const rowsOf = (level) => fmt(manifest.levels[level] ? manifest.levels[level].rows : 0);
    const about = make("p", "atlas-viewer-about", manifest.title + ", " + split.label + " (" + (manifest.kind || "data") +
      "): " + rowsOf("dialogues") + " dialogue rows, " + rowsOf("turns") + " turns, " + rowsOf("evidence") + " evidence rows.");
    const note = manifest.note ? make("p", "atlas-viewer-note", manifest.note) : null;

    if (this.compact) {
      this.link.textContent = "open these rows in the data viewer";
      this.link.classList.add("atlas-viewer-open-page");
      body.appendChild(about);
      if (note) { body.appendChild(note); }
      body.appendChild(scroller(this.table = make("table", "atlas-viewer-grid"), "The rows"));
      body.appendChild(this.pagerSlot = make("div", "atlas-viewer-pagerslot"));
      return;
    }
    const tools = (this.filters = make("details", "atlas-viewer-filters atlas-viewer-tools"));
    tools.appendChild(make("summary", null, "Filters, download, embed, and about these rows" +
      (manifest.kind ? " (" + manifest.kind + ")" : "")));
    tools.appendChild(about);
    if (note) { tools.appendChild(note); }
    tools.appendChild(make("p", "atlas-viewer-note", "Search: every word must occur in a row, \"quoted text\" as written " +
      "(up to " + SEARCH_CAP + " characters); ids, label names and English glosses are searched too."));
    this.filterBox = make("div", "atlas-viewer-filterbox");
    tools.appendChild(this.filterBox);
    tools.appendChild(downloadBox({
      file: split.dataset + "-" + split.split + "-" + data.level, columns: this.visibleColumns(), rows: data.rows,
      matches: () => this.matches, level: data.level,
    }));
    tools.appendChild(this.embed = embedBox(() => window.location.href.split("#")[0] + writeHash(this.view()),
      () => manifest.title + ", " + split.label + ": the data viewer"));
    // open while the reader keeps it open, and when the link filters (its filters are then on view)
    tools.open = this.toolsOpen || Object.keys(state.facets).length > 0 || Object.keys(state.ranges).length > 0;
    tools.addEventListener("toggle", () => { this.toolsOpen = tools.open; });
    body.appendChild(tools);
    this.buildFilters();
    const everySlot = make("div", "atlas-viewer-everyslot");
    body.appendChild(everySlot);
    every.addEventListener("click", () => {
      clear(everySlot);
      const view = this.view();
      everySlot.appendChild(everySplit({
        splits: this.splits.filter((one) => one.dataset === split.dataset), level: view.level, q: view.q,
        load: (one) => this.manifest(one).then((m) => (m.levels[view.level] ? this.load(one, view.level) : null)),
        release: (one) => { if (one !== this.split) { delete this.entry(one).levels[view.level]; } },
        open: (one) => { this.go({ split: this.splitKey(one), level: view.level, q: view.q }); },
      }));
    });

    body.appendChild(scroller(this.table = make("table", "atlas-viewer-grid"), "The rows"));
    body.appendChild(this.pagerSlot = make("div", "atlas-viewer-pagerslot"));

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

    body.appendChild(this.sql = sqlConsole(this, this.sqlHeld));
  }

  /** Rows per page: the link's, else the viewer's own. @returns {number} */
  perPage() {
    return this.compact ? this.pageSize : this.view().per || this.pageSize;
  }

  /** The pager under the grid, drawn again at each refresh. @param {number} pages */
  drawPager(pages) {
    const slot = /** @type {HTMLElement} */ (this.pagerSlot);
    clear(slot);
    const view = this.view();
    slot.appendChild(pager({
      page: view.page, pages, size: this.perPage(), sizes: this.compact ? undefined : PAGE_SIZES,
      onPage: (page) => { this.view().page = page; this.refresh(); },
      onSize: (size) => {
        const current = this.view();
        const first = current.page * this.perPage(); // the first row on screen stays on screen
        current.per = size === this.pageSize ? 0 : size;
        current.page = Math.floor(first / size);
        this.refresh();
      },
    }));
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
    const pages = Math.max(1, Math.ceil(count / this.perPage()));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    this.drawGrid();
    /** @type {HTMLElement} */ (this.count).textContent = fmt(count) + " of " + fmt(n) + " " + data.level + " rows match";
    this.holder.setAttribute("data-matches", String(count));
    this.holder.setAttribute("data-rows", String(n));
    this.showSearchLimits();
    this.drawPager(pages);
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
    const note = /** @type {HTMLElement} */ (this.searchNote);
    note.textContent = "(" + text + ")";
    note.hidden = !this.searchCut && !this.searchStopped;
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
    const per = this.perPage();
    const start = state.page * per;
    const idColumn = data.columns[data.info.id];
    const shown = Array.from(this.matches.subarray(start, start + per));
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
        const badges = (column.kind === "label" || column.kind === "labels") && value !== undefined;
        const td = make("td", "atlas-viewer-" + column.kind, badges ? null
          : text.length > 160 ? text.slice(0, 159) + "\u2026" : text);
        if (badges) { labelBadges(td, column.name, value); } // coloured as in the chapters
        td.setAttribute("data-label", column.name); // a phone's card names each value by its column
        if (column.name === "role" && typeof value === "string") { tr.setAttribute("data-role", cssToken(value)); }
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
    if (this.embed) { this.embed.refresh(); }
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
      const current = make("div", "atlas-viewer-current");
      const head = make("div", "atlas-viewer-detail-head");
      const title = split.label + ": " + data.info.id + " " + id;
      head.appendChild(make("strong", null, title));
      const pin = button("pin to compare", "atlas-viewer-pin");
      pin.title = "keep this dialogue on screen, beside the next one you open";
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
      head.appendChild(pin);
      current.appendChild(head);
      const view = make("div", "atlas-viewer-rendering");
      view.innerHTML = rendering; // rendered and escaped by the atlas's renderers, joined from its fragments
      current.appendChild(view);
      detail.appendChild(current);
      pin.addEventListener("click", () => { this.pinOpen(); });
      sideBySide(detail, this.pinned || null);
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

  /** Pin the open dialogue: it stays beside the next one opened (kept in the link as pin=<id>). */
  pinOpen() {
    const detail = /** @type {HTMLElement} */ (this.detail);
    const view = detail.querySelector(".atlas-viewer-current .atlas-viewer-rendering");
    const id = detail.getAttribute("data-id");
    if (!(view instanceof HTMLElement) || id === null) {
      return;
    }
    const title = detail.getAttribute("aria-label") || id;
    this.pinned = pinnedPane(title, view, () => {
      this.pinned = null;
      this.view().pin = null;
      this.saveHash();
      sideBySide(detail, null);
    });
    this.view().pin = id;
    this.saveHash();
    sideBySide(detail, this.pinned);
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
    const context = {
      data, chosen: (/** @type {string} */ name) => this.view().facets[name] || [],
      toggleFacet: (/** @type {string} */ name, /** @type {string} */ value, /** @type {boolean} */ on) => {
        this.toggleFacet(name, value, on);
      },
      setRange: (/** @type {string} */ name, /** @type {Array<number | null>} */ range) => { this.setRange(name, range); },
    };
    this.statColumns().forEach((column) => { body.appendChild(statPanel(column, rows, context)); });
  }

}
