/* The data viewer of a dataset's splits: the view's state and the wiring. Each part is a function
 * building its element from the state and the data (split-bar.js, search-bar.js, tools-panel.js with
 * facets.js, grid.js, pager.js, row-view.js, stat-panels.js, sql-console.js, every-split.js); the
 * logic is in data.js, store.js, columns.js, filters.js, statistics.js, sql.js and url-state.js.
 * The view is always in the URL's hash, so a link or a reload reproduces it, except that a query from
 * a link is only shown: it runs when the reader presses Run. */

import { cell, loadAllCodes } from "./data.js";
import { attributes, clear, make } from "./dom.js";
import { searchableColumns, visibleColumns } from "./columns.js";
import { everySlot } from "./every-split.js";
import { facetBox } from "./facets.js";
import { showFirstPage } from "./first-page.js";
import { computeMasks, keepKnownColumns, markFacets, sortRows } from "./filters.js";
import { grid } from "./grid.js";
import { PAGE_SIZES, pager } from "./pager.js";
import { rowPane } from "./row-view.js";
import { scroller } from "./scroller.js";
import { searchBar } from "./search-bar.js";
import { splitBar } from "./split-bar.js";
import { consoleState, sqlConsole } from "./sql-console.js";
import { statisticsBox } from "./stat-panels.js";
import { splitStore } from "./store.js";
import { aboutRows, toolsPanel } from "./tools-panel.js";
import { keyed } from "./text.js";
import { atLevel, fullState, setRange, sortBy, toggleValue, writeHash } from "./url-state.js";

/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./url-state.js").ViewState} ViewState */
/** @typedef {import("./store.js").SplitEntry} SplitEntry */

/**
 * @typedef {object} Parts the parts of a viewer on screen
 * @property {import("./split-bar.js").SplitBar} bar
 * @property {HTMLElement} body
 * @property {HTMLElement} status
 * @property {import("./search-bar.js").SearchBar} search
 * @property {ReturnType<typeof scroller>} scroller the grid's
 * @property {HTMLElement} pager the pager's slot (drawn again at each refresh)
 * @property {import("./facets.js").FacetBox} facets
 * @property {ReturnType<typeof toolsPanel> | null} tools
 * @property {import("./row-view.js").RowPane} detail the open row's region
 * @property {ReturnType<typeof statisticsBox> | null} stats
 * @property {ReturnType<typeof sqlConsole> | null} sql
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
    this.store = splitStore(siteRoot); // what is fetched of the splits
    /** @type {ViewState | null} */ this.state = null;
    /** @type {LevelData | null} */ this.data = null;
    /** @type {SplitEntry | null} */ this.split = null;
    /** @type {Uint32Array} */ this.matches = new Uint32Array(0);
    this.sqlHeld = consoleState(); // what DuckDB holds, across the consoles of the levels shown
    /** @type {{pane: HTMLElement | null}} the dialogue pinned beside the open one */ this.pinned = { pane: null };
    this.toolsOpen = false; // the panel of filters, downloads and notes: closed until opened (or a link filters)
    /** @type {string | null} */ this.ownHash = null;
    this.sorting = false; // while a lazy column's codes are fetched to sort by it
    this.searchCut = false; // the search was cut to SEARCH_CAP characters
    /** @type {Uint8Array | null} */ this.baseBuffer = null;
    // a chapter's compact view: a few rows of its splits, each opening the dataset's viewer page
    this.compact = holder.classList.contains("atlas-viewer-compact"); // (data-viewer-page) at that row
    this.pageUrl = siteRoot + (holder.getAttribute("data-viewer-page") || "");
    this.pageSize = this.compact ? COMPACT_PAGE_SIZE : PAGE_SIZE;
    this.parts = /** @type {Parts} */ ({ tools: null, stats: null, sql: null }); // built by start, then by build
  }

  /** The viewer page's address showing ``state`` (a compact view's links). @param {ViewState} state */
  pageLink(state) { return this.pageUrl + writeHash(state); }
  /** @param {SplitEntry} split */
  splitKey(split) { return split.dataset + "/" + split.split; }
  /** @param {string} key */
  findSplit(key) { return this.splits.findIndex((split) => this.splitKey(split) === key); }
  /** @returns {ViewState} */ view() { return /** @type {ViewState} */ (this.state); }
  /** @returns {LevelData} */ level() { return /** @type {LevelData} */ (this.data); }
  /** Rows per page: the link's, else the viewer's own. */
  perPage() { return this.compact ? this.pageSize : this.view().per || this.pageSize; }

  /** The controls above the rows. */
  start() {
    const { holder, parts } = this;
    holder.hidden = false;
    if (this.compact) { holder.appendChild(make("div", "atlas-viewer-title", "The rows of this chapter's splits")); }
    /** @param {number} index */
    const keyAt = (index) => this.splitKey(this.splits[index]);
    holder.appendChild(parts.bar = splitBar({ splits: this.splits, compact: this.compact,
      onOpen: (index, level) => { this.go({ split: keyAt(index), level }); },
      onSplit: (index) => { if (this.state) { this.go({ split: keyAt(index), level: this.state.level }); } },
      onLevel: (level) => { if (this.state) { this.go(atLevel(this.state, level)); } } }));
    holder.appendChild(parts.body = make("div", "atlas-viewer-body"));
    parts.body.hidden = true;
    holder.appendChild(parts.status = make("p", "atlas-viewer-status"));
    parts.status.setAttribute("role", "status");
    holder.setAttribute("data-viewer-state", "closed");
    if (this.compact) { this.go({ split: keyAt(0), level: "dialogues" }); }
  }

  /** Show a view (from the URL or a control): loads what it needs first.
   * @param {Partial<ViewState> & {split: string}} partial @param {boolean} [fromHash] @returns {Promise<boolean>} */
  go(partial, fromHash) {
    const state = fullState(partial);
    const { holder, parts } = this;
    this.searchCut = !!state.searchCut;
    const index = this.findSplit(state.split);
    if (index === -1) { return Promise.resolve(false); }
    const split = this.splits[index];
    parts.bar.show(index, state.level);
    this.say("Loading " + split.label + " (" + state.level + ")\u2026", "loading");
    const started = performance.now();
    const ticket = (this.ticket = {}); // a later go() draws no first page of this one's level
    return this.store.load(split, state.level, (first, held) => this.ticket === ticket && !this.compact &&
      showFirstPage(parts.body, first, state, state.per || this.pageSize, held) &&
      this.say("Loading the other rows (to sort, filter and search them)\u2026")).then((data) => {
      this.store.forgetOtherLevels(split, state.level);
      Object.assign(this, { state, data, split });
      keepKnownColumns(data.columns, state);
      this.build();
      this.refresh();
      if (!this.sorting) { holder.setAttribute("data-viewer-state", "ready"); } // else once the values sorted by are there
      holder.setAttribute("data-load-ms", String(Math.round(performance.now() - started)));
      parts.bar.opened();
      if (state.sql && parts.sql) { parts.sql.showLinked(state.sql); }
      if (!state.pin) { this.pinned.pane = null; } // a pin belongs to its split's view (and to its link)
      if (!this.compact) { parts.detail.restore(state.row, state.pin || null); }
      if (fromHash && !this.compact) { holder.scrollIntoView({ block: "start" }); }
      return true;
    }, (error) => {
      holder.setAttribute("data-viewer-state", "error");
      return this.store.withheld(split).then((reason) => this.say(reason ||
        "The data files of " + split.label + " could not be loaded (" + error.message + ")."));
    });
  }

  /** The parts of a loaded level: the search on the split's line; the filters, downloads, embedding and
   * notes in a panel the reader opens; then the rows (the first screen), the open row, the statistics, SQL. */
  build() {
    const { parts } = this;
    const data = this.level();
    const state = this.view();
    const split = /** @type {SplitEntry} */ (this.split);
    clear(parts.body);
    parts.body.hidden = false;
    const every = everySlot({ splits: this.splits.filter((one) => one.dataset === split.dataset), store: this.store,
      shown: () => this.split, open: (one, level, q) => { this.go({ split: this.splitKey(one), level, q }); } });
    const facets = () => facetBox({ data, columns: visibleColumns(data), facets: this.view().facets, ranges: this.view().ranges,
      onToggle: this.chooseValue.bind(this), onRange: this.chooseRange.bind(this) });
    parts.bar.setSearch(parts.search = searchBar({ q: state.q, dataset: split.dataset, compact: this.compact,
      onSearch: (q, cut) => { this.searchCut = cut; Object.assign(this.view(), { q, page: 0 }); this.refresh(); },
      onReset: () => {
        Object.assign(this.view(), { q: "", facets: keyed(), ranges: keyed(), page: 0 });
        if (parts.tools) { parts.facets.replaceWith(parts.facets = facets()); }
        this.refresh();
      },
      onEvery: () => { every.run(this.view().level, this.view().q); } }));
    const rows = parts.scroller = scroller(make("table", "atlas-viewer-grid"), "The rows");
    parts.pager = make("div", "atlas-viewer-pagerslot");
    parts.sql = parts.stats = parts.tools = null;
    if (this.compact) { parts.body.append(...aboutRows(data.manifest, split), rows, parts.pager); return; }
    parts.tools = toolsPanel({ data, split, columns: visibleColumns(data), facets: parts.facets = facets(),
      matches: () => this.matches, link: () => window.location.href.split("#")[0] + writeHash(this.view()),
      // open while the reader keeps it open, and when the link filters (its filters are then on view)
      open: this.toolsOpen || Object.keys(state.facets).length > 0 || Object.keys(state.ranges).length > 0,
      onToggle: (open) => { this.toolsOpen = open; } });
    parts.stats = statisticsBox({ data, matches: () => this.matches, chosen: (name) => this.view().facets[name] || [],
      toggleFacet: this.chooseValue.bind(this), setRange: this.chooseRange.bind(this) });
    parts.detail = rowPane({ data, split, pinned: this.pinned, holder: this.holder,
      rendering: (dialogue) => this.store.rendering(split, data.manifest.html, dialogue),
      onRow: (row) => { this.view().row = row; this.saveHash(); }, onPin: (pin) => { this.view().pin = pin; this.saveHash(); } });
    parts.body.append(parts.tools, every, rows, parts.pager, parts.detail, parts.stats,
      parts.sql = sqlConsole(this, this.sqlHeld));
  }

  /** Choose (or drop) a value of a label filter. @param {string} name @param {string} value @param {boolean} on */
  chooseValue(name, value, on) {
    toggleValue(this.view(), name, value, on);
    this.refresh();
  }

  /** Set (or drop: both ends null) a range filter, shown in its fields. @param {string} name @param {Array<number | null>} range */
  chooseRange(name, range) {
    setRange(this.view(), name, range);
    if (this.parts.tools) { this.parts.facets.showRange(name, range); }
    this.refresh();
  }

  refresh() {
    const t0 = performance.now();
    const { holder, parts } = this;
    const data = this.level();
    const state = this.view();
    const n = data.rows;
    // one buffer for the level, reused by every refresh: allocating millions of bytes per click
    // leaves the browser holding them long after
    if (!this.baseBuffer || this.baseBuffer.length !== n) { this.baseBuffer = new Uint8Array(n); }
    const masks = computeMasks(data.columns, n, state, searchableColumns(data), this.baseBuffer, SEARCH_BUDGET_MS);
    markFacets(masks, n);
    this.matches = this.sortedRows(masks.base);
    const count = this.matches.length;
    if (parts.tools) { parts.facets.update(masks, state.facets); }
    holder.setAttribute("data-refresh-ms", String(Math.round(performance.now() - t0)));
    const pages = Math.max(1, Math.ceil(count / this.perPage()));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    this.drawGrid();
    const { stopped, words } = masks;
    parts.search.show({ count, rows: n, level: data.level, cut: this.searchCut, stopped, words, budget: SEARCH_BUDGET_MS });
    attributes(holder, { "data-matches": count, "data-rows": n, "data-search": state.q,
      "data-search-cut": this.searchCut ? "1" : "0", "data-search-stopped": stopped || 0 });
    clear(parts.pager);
    parts.pager.appendChild(pager({ page: state.page, pages, size: this.perPage(), sizes: this.compact ? undefined : PAGE_SIZES,
      onPage: (page) => { this.view().page = page; this.refresh(); },
      onSize: (size, page) => { Object.assign(this.view(), { per: size === this.pageSize ? 0 : size, page }); this.refresh(); } }));
    if (!this.sorting) { this.say(""); }
    if (parts.stats) { parts.stats.draw(); }
    this.saveHash();
  }

  /** The matching rows in the order of the column sorted by. A lazy column's codes for every row are
   * fetched first, then the rows sorted again. @param {Uint8Array} keep @returns {Uint32Array} */
  sortedRows(keep) {
    const data = this.level();
    const state = this.view();
    const column = state.sort ? data.columns[state.sort] : null;
    if (column && !column.codes) {
      this.say("Loading every value of " + column.name + " to sort by it\u2026", "loading");
      this.sorting = true;
      loadAllCodes(column).then(() => {
        this.sorting = false;
        if (this.data === data) { this.refresh(); this.holder.setAttribute("data-viewer-state", "ready"); }
      }, (error) => {
        this.sorting = false;
        this.say("The values of " + column.name + " could not be loaded (" + error.message + ").", "ready");
      });
    }
    const held = column && column.codes ? column : null;
    return sortRows(keep, held ? held.codes : null, held ? held.size : 0, state.desc);
  }

  drawGrid() {
    const data = this.level();
    const state = this.view();
    const { matches, parts } = this;
    const { page } = state;
    const start = page * this.perPage();
    const table = grid({ data, columns: visibleColumns(data), rows: Array.from(matches.subarray(start, start + this.perPage())),
      sort: state.sort, desc: state.desc,
      onSort: (name) => { sortBy(state, name); this.refresh(); },
      onOpen: (row, byKeyboard) => {
        if (this.compact) { // the row opens in the viewer page, at the same split, level and row
          window.location.assign(this.pageLink({ ...state, page: 0, row: String(cell(data.columns[data.info.id], row)) }));
        } else {
          parts.detail.open(row, byKeyboard);
        }
      },
      // the same page drawn again once the values of its lazy cells are there
      onFetched: () => { if (this.matches === matches && this.view().page === page) { this.drawGrid(); } },
      onError: (column, error) => { this.say("The values of " + column.name + " could not be loaded (" + error.message + ")."); },
    });
    parts.scroller.show(table);
    this.holder.setAttribute("data-grid-waiting", String(table.waiting));
  }

  /** Say ``text`` on the status line, and the viewer's state if given; false (a failed go's result).
   * @param {string} text @param {string} [state] @returns {false} */
  say(text, state) {
    this.parts.status.textContent = text;
    if (state) { this.holder.setAttribute("data-viewer-state", state); }
    return false;
  }

  saveHash() {
    const link = this.parts.search.link;
    if (this.compact) { // a chapter's address stays the chapter's: the link opens the viewer page
      link.setAttribute("href", this.pageLink({ ...this.view(), row: null }));
      return;
    }
    const hash = writeHash(this.view());
    link.setAttribute("href", hash);
    if (this.parts.tools) { this.parts.tools.embed.refresh(); }
    if (window.location.hash !== hash) {
      this.ownHash = hash;
      history.replaceState(null, "", hash);
    }
  }
}
