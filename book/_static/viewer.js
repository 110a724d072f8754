/* Grounded Dialogue Atlas: the data viewer (our own script; DuckDB-WASM, served by the book, for SQL).
 *
 * Every explorer written by utils.render.explorer.static_explorer during a book build lists, in its
 * data block (<script type="application/json" class="atlas-explorer-data">, "viewer"), the splits whose data files
 * (utils/viewer.py) sit in the site under _viewer/<dataset>/<split>/. This script shows, under the
 * explorer, a viewer of every row of those splits at three levels (dialogues, turns, evidence): a
 * paged grid with sortable columns, label filters with counts, numeric ranges, a search over every
 * string, glosses and ids ("an exact phrase" in quotes), column statistics of the split or of the
 * current filter, a row opened as the atlas renders its dialogue, and an SQL console (DuckDB-WASM,
 * loaded only when a query runs; its tables come from the same columns). The URL hash
 * (#viewer=dataset/split&...) always holds the view, so a link or a reload reproduces it, except
 * that a query from a link is only shown: it runs when the reader presses Run.
 *
 * A level is held column by column as the files store it (utils/viewer.py): per row a code (a typed
 * array of one to four bytes a row) into the column's sorted distinct values, so that a text shown
 * at many rows is held once; sorting is a counting sort of codes, and a filter or a search tests
 * each distinct value once. A paged column (millions of distinct values) keeps only its codes; its
 * values are fetched a chunk at a time for the rows on screen. Only the level on screen is held.
 *
 * A link and the data are untrusted: their strings are only ever inserted as text (the renderings
 * of dialogues, made and escaped by the atlas's Python renderers, are the only markup inserted),
 * their keys index only prototype-less objects, a search is capped, a downloaded CSV cannot hold a
 * formula, and the SQL console's DuckDB is closed to the network and to files (LOCKDOWN). Opened from disk (file://), browsers
 * block the fetches and the worker this needs: the explorer above keeps working and a note says how
 * to serve the page.
 */
(function () {
  "use strict";

  var FORMAT = 2;
  var PAGE_SIZE = 25;
  var HASH_KEY = "viewer";
  var LEVELS = ["dialogues", "turns", "evidence"];
  /* A search is cut to this many characters (the box says so), so that a pasted book or a crafted
   * link cannot make the tab test thousands of words against every row. */
  var SEARCH_CAP = 200;
  /* A search stops testing further words after this long (and says so): each word scans every
   * distinct value of every searched column. */
  var SEARCH_BUDGET_MS = 1500;
  var script = document.currentScript;
  // the site's root, from this script's own address (…/_static/viewer.js)
  var siteRoot = script && script.src ? script.src.replace(/_static\/viewer\.js.*$/, "") : "";
  var numberFormat = typeof Intl !== "undefined" ? new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 }) : null;

  function fmt(value) {
    if (value === null || value === undefined || (typeof value === "number" && !isFinite(value))) {
      return "\u2013";
    }
    return numberFormat && typeof value === "number" ? numberFormat.format(value) : String(value);
  }

  /* An object for keys that come from a URL or from the data (column names, label values, levels):
   * it has no prototype, so "__proto__", "constructor" or "toString" are keys like any other, not the
   * members every plain object inherits. */
  function keyed() {
    return Object.create(null);
  }

  /* ``object[key]`` when the object itself holds it (never an inherited member), else undefined. */
  function own(object, key) {
    return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
  }

  function make(tag, className, text) {
    var element = document.createElement(tag);
    if (className) {
      element.className = className;
    }
    if (text !== undefined && text !== null) {
      element.textContent = String(text);
    }
    return element;
  }

  function clear(element) {
    while (element.firstChild) {
      element.removeChild(element.firstChild);
    }
  }

  function button(text, className) {
    var b = make("button", className, text);
    b.type = "button";
    return b;
  }

  /* The bytes of a gzip-compressed file (or of a plain one, if a server already unpacked it). Not
   * kept in the HTTP cache: the viewer holds what it needs of a level, and a private window's cache
   * (memory) would hold the files a second time (58 MB for the evidence of the full WoW train). */
  function fetchBytes(url) {
    return fetch(url, { cache: "no-store" }).then(function (response) {
      if (!response.ok) {
        throw new Error("HTTP " + response.status + " for " + url);
      }
      return response.arrayBuffer();
    }).then(function (buffer) {
      var bytes = new Uint8Array(buffer, 0, Math.min(2, buffer.byteLength));
      if (bytes.length > 1 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
        var stream = new Blob([buffer]).stream().pipeThrough(new DecompressionStream("gzip"));
        return new Response(stream).arrayBuffer();
      }
      return buffer;
    });
  }

  /* A gzip-compressed JSON file. */
  function fetchJson(url) {
    return fetchBytes(url).then(function (buffer) { return JSON.parse(new TextDecoder().decode(buffer)); });
  }

  /* -- the view in the URL ---------------------------------------------------------------------- */

  function readHash() {
    var raw = window.location.hash.slice(1);
    if (raw.indexOf(HASH_KEY + "=") !== 0) {
      return null;
    }
    var params = new URLSearchParams(raw);
    var state = {
      split: params.get(HASH_KEY) || "",
      level: LEVELS.indexOf(params.get("level")) !== -1 ? params.get("level") : "dialogues",
      q: (params.get("q") || "").slice(0, SEARCH_CAP),
      searchCut: (params.get("q") || "").length > SEARCH_CAP,
      sort: params.get("sort") || "",
      desc: params.get("desc") === "1",
      page: Math.max(0, (parseInt(params.get("page") || "1", 10) || 1) - 1),
      row: params.get("row"),
      sql: params.get("sql") || "",
      facets: keyed(),
      ranges: keyed()
    };
    params.getAll("f").forEach(function (item) {
      var at = item.indexOf("=");
      if (at > 0) {
        var name = item.slice(0, at);
        (state.facets[name] = state.facets[name] || []).push(item.slice(at + 1));
      }
    });
    params.getAll("r").forEach(function (item) {
      var match = /^(.*)=(-?[\d.eE+-]*)~(-?[\d.eE+-]*)$/.exec(item);
      if (match) {
        state.ranges[match[1]] = [match[2] === "" ? null : Number(match[2]), match[3] === "" ? null : Number(match[3])];
      }
    });
    return state;
  }

  function writeHash(state) {
    var params = new URLSearchParams();
    params.set(HASH_KEY, state.split);
    params.set("level", state.level);
    if (state.q) { params.set("q", state.q); }
    if (state.sort) { params.set("sort", state.sort); }
    if (state.sort && state.desc) { params.set("desc", "1"); }
    if (state.page) { params.set("page", String(state.page + 1)); }
    Object.keys(state.facets).forEach(function (name) {
      state.facets[name].forEach(function (value) { params.append("f", name + "=" + value); });
    });
    Object.keys(state.ranges).forEach(function (name) {
      var range = state.ranges[name];
      params.append("r", name + "=" + (range[0] === null ? "" : range[0]) + "~" + (range[1] === null ? "" : range[1]));
    });
    if (state.row !== null && state.row !== undefined) { params.set("row", state.row); }
    if (state.sql) { params.set("sql", state.sql); }
    var parts = [];
    params.forEach(function (value, key) { parts.push(hashValue(key) + "=" + hashValue(value)); });
    return "#" + parts.join("&");
  }

  /* A key or value of the hash, as URLSearchParams reads it back: percent-encoded, but "/" kept as
   * it is (a fragment may hold it: #viewer=wow/train&row=train/0 reads better than wow%2Ftrain)
   * and spaces as "+" (a "+" itself is %2B). Links written with %2F still read the same. */
  function hashValue(text) {
    return encodeURIComponent(text).replace(/%2F/g, "/").replace(/%20/g, "+");
  }

  /* -- search ------------------------------------------------------------------------------------ */

  /* Words must all occur; "quoted text" must occur as written (case and runs of spaces aside). At
   * most SEARCH_CAP characters are read; a word said twice, or held in another word or phrase of the
   * search (a row holding "jazz band" holds "jazz"), is tested once. */
  function parseQuery(text) {
    var needles = [];
    var rest = String(text).slice(0, SEARCH_CAP).replace(/"([^"]*)"/g, function (_, phrase) {
      var clean = phrase.toLowerCase().replace(/\s+/g, " ").trim();
      if (clean) { needles.push(clean); }
      return " ";
    });
    rest.toLowerCase().split(/\s+/).forEach(function (word) {
      if (word && word !== '"') { needles.push(word.replace(/"/g, "")); }
    });
    var unique = needles.filter(function (needle, k) { return needle && needles.indexOf(needle) === k; });
    return unique.filter(function (needle) {
      return !unique.some(function (other) { return other !== needle && other.indexOf(needle) !== -1; });
    });
  }

  /* -- statistics, as pandas computes them (std with one degree of freedom) ----------------------- */

  function describe(values) {
    var n = values.length;
    if (!n) {
      return { count: 0 };
    }
    var sorted = (values instanceof Float64Array ? values : Float64Array.from(values)).sort();
    var sum = 0;
    for (var i = 0; i < n; i += 1) { sum += sorted[i]; }
    var mean = sum / n;
    var squares = 0;
    for (var j = 0; j < n; j += 1) { squares += (sorted[j] - mean) * (sorted[j] - mean); }
    var middle = Math.floor(n / 2);
    return {
      count: n,
      min: sorted[0],
      max: sorted[n - 1],
      mean: mean,
      median: n % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2,
      std: n > 1 ? Math.sqrt(squares / (n - 1)) : null,
      sorted: sorted
    };
  }

  function histogram(stats, title) {
    var box = make("div", "atlas-viewer-hist");
    if (!stats.count || !stats.sorted) {
      return box;
    }
    var bins = [];
    var integers = true;
    for (var i = 0; i < stats.sorted.length && integers; i += 1) {
      integers = Math.round(stats.sorted[i]) === stats.sorted[i];
    }
    var span = stats.max - stats.min;
    var n = integers && span < 20 ? span + 1 : Math.min(20, Math.max(1, Math.ceil(Math.sqrt(stats.count))));
    var width = integers && span < 20 ? 1 : span / n || 1;
    for (var b = 0; b < n; b += 1) { bins.push(0); }
    stats.sorted.forEach(function (value) {
      var at = Math.min(n - 1, Math.floor((value - stats.min) / width));
      bins[at] += 1;
    });
    var top = Math.max.apply(null, bins);
    var bars = make("div", "atlas-viewer-bars");
    bars.setAttribute("role", "img");
    bars.setAttribute("aria-label", title + ": " + bins.map(function (count, k) {
      return fmt(stats.min + k * width) + "\u2013" + fmt(stats.min + (k + 1) * width) + ": " + count;
    }).join(", "));
    bins.forEach(function (count, k) {
      var bar = make("span", "atlas-viewer-bar");
      bar.style.height = (top ? (100 * count) / top : 0) + "%";
      bar.title = fmt(stats.min + k * width) + (width === 1 && integers ? "" : "\u2013" + fmt(stats.min + (k + 1) * width)) +
        ": " + fmt(count);
      bars.appendChild(bar);
    });
    box.appendChild(bars);
    return box;
  }

  /* -- one viewer (under one explorer) ----------------------------------------------------------- */

  function Viewer(holder, config) {
    this.holder = holder;
    this.splits = config.splits || [];
    this.cache = keyed(); // path -> {manifest, levels: {level: data}, html: {shard: list}}
    this.state = null;
    this.matches = null;
    this.sqlTablesFor = null;
    this.sqlLeftOut = [];
  }

  Viewer.prototype.start = function () {
    var self = this;
    var holder = this.holder;
    holder.hidden = false;
    holder.appendChild(make("div", "atlas-viewer-title", "Every row of every split: the data viewer"));
    if (window.location.protocol === "file:") {
      holder.appendChild(make("p", "atlas-viewer-note atlas-viewer-file",
        "Opened from disk, this page keeps the explorer above. The full viewer (every row of every split, " +
        "filters, column statistics and SQL) needs the page served, because browsers block its fetches and " +
        "workers on file:// pages: run `python -m http.server` in _build/html and open " +
        "http://localhost:8000/ in the browser."));
      holder.setAttribute("data-viewer-state", "file");
      return;
    }
    var bar = make("div", "atlas-viewer-bar-top");
    var splitLabel = make("label", null, "Split ");
    this.splitSelect = make("select", "atlas-viewer-split");
    this.splits.forEach(function (split, i) {
      var option = make("option", null, split.label + " (" + split.dataset + ")");
      option.value = String(i);
      self.splitSelect.appendChild(option);
    });
    splitLabel.appendChild(this.splitSelect);
    var levelLabel = make("label", null, "Rows ");
    this.levelSelect = make("select", "atlas-viewer-level");
    splitLabel.className = "atlas-viewer-control";
    levelLabel.className = "atlas-viewer-control";
    levelLabel.appendChild(this.levelSelect);
    this.openButton = button("Open the viewer", "atlas-viewer-open");
    bar.appendChild(splitLabel);
    bar.appendChild(levelLabel);
    bar.appendChild(this.openButton);
    holder.appendChild(bar);
    this.body = make("div", "atlas-viewer-body");
    this.body.hidden = true;
    holder.appendChild(this.body);
    this.status = make("p", "atlas-viewer-status");
    this.status.setAttribute("role", "status");
    holder.appendChild(this.status);
    this.openButton.addEventListener("click", function () {
      self.go({ split: self.splitKey(self.splits[Number(self.splitSelect.value)]), level: self.levelSelect.value || "dialogues" });
    });
    this.splitSelect.addEventListener("change", function () {
      if (self.state) {
        self.go({ split: self.splitKey(self.splits[Number(self.splitSelect.value)]), level: "dialogues" });
      }
    });
    this.levelSelect.addEventListener("change", function () {
      if (self.state) {
        self.go({ split: self.state.split, level: self.levelSelect.value });
      }
    });
    ["dialogues", "turns", "evidence"].forEach(function (level) {
      var option = make("option", null, level);
      option.value = level;
      self.levelSelect.appendChild(option);
    });
    holder.setAttribute("data-viewer-state", "closed");
  };

  Viewer.prototype.splitKey = function (split) {
    return split.dataset + "/" + split.split;
  };

  Viewer.prototype.findSplit = function (key) {
    for (var i = 0; i < this.splits.length; i += 1) {
      if (this.splitKey(this.splits[i]) === key) {
        return i;
      }
    }
    return -1;
  };

  /* Show the view ``state`` (from the URL or a control): loads what it needs first. */
  Viewer.prototype.go = function (partial, fromHash) {
    var self = this;
    var state = {
      split: partial.split, level: partial.level || "dialogues", q: partial.q || "", sort: partial.sort || "",
      desc: !!partial.desc, page: partial.page || 0, row: partial.row === undefined ? null : partial.row,
      sql: partial.sql || "", facets: partial.facets || keyed(), ranges: partial.ranges || keyed()
    };
    if (LEVELS.indexOf(state.level) === -1) {
      state.level = "dialogues";
    }
    this.searchCut = !!partial.searchCut || state.q.length > SEARCH_CAP;
    state.q = state.q.slice(0, SEARCH_CAP);
    var index = this.findSplit(state.split);
    if (index === -1) {
      return Promise.resolve(false);
    }
    var split = this.splits[index];
    this.splitSelect.value = String(index);
    this.levelSelect.value = state.level;
    this.holder.setAttribute("data-viewer-state", "loading");
    this.status.textContent = "Loading " + split.label + " (" + state.level + ")\u2026";
    var started = performance.now();
    return this.load(split, state.level).then(function (data) {
      // only the level on screen is held: another one is fetched again when the reader opens it
      Object.keys(self.cache).forEach(function (path) {
        Object.keys(self.cache[path].levels).forEach(function (level) {
          if (path !== split.path || level !== state.level) { delete self.cache[path].levels[level]; }
        });
      });
      self.state = state;
      self.data = data;
      self.split = split;
      self.keepKnownColumns();
      self.build();
      self.refresh(true);
      if (!self.sorting) { // else ready once the values sorted by are there
        self.holder.setAttribute("data-viewer-state", "ready");
      }
      self.holder.setAttribute("data-load-ms", String(Math.round(performance.now() - started)));
      if (state.sql) {
        // a query from a link is the sender's text: shown, and run only when the reader asks
        self.sqlBox.open = true;
        self.sqlText.value = state.sql;
        if (sqlConsoleMissing()) { // no engine in this build: say so rather than offer to run it
          self.sqlStatus.textContent = SQL_MISSING;
          self.holder.setAttribute("data-sql-state", "missing");
        } else {
          self.sqlPending.hidden = false;
          self.holder.setAttribute("data-sql-state", "waiting");
        }
      }
      if (state.row !== null) {
        self.openRow(state.row);
      }
      if (fromHash) {
        self.holder.scrollIntoView({ block: "start" });
      }
      return true;
    }, function (error) {
      self.holder.setAttribute("data-viewer-state", "error");
      return self.withheld(split).then(function (reason) {
        self.status.textContent = reason || "The data files of " + split.label + " could not be loaded (" + error.message + ").";
        return false;
      });
    });
  };

  /* Forget a sort, filters and ranges naming no column of the level on screen (a crafted or an old
   * link), so that the view and its link hold only what the grid shows. */
  Viewer.prototype.keepKnownColumns = function () {
    var columns = this.data.columns;
    var state = this.state;
    var known = function (name) { return !!columns[name] && columns[name].kind !== "hidden"; };
    if (state.sort && !known(state.sort)) {
      state.sort = "";
      state.desc = false;
    }
    Object.keys(state.facets).forEach(function (name) {
      var kind = known(name) ? columns[name].kind : "";
      if (kind !== "label" && kind !== "labels") { delete state.facets[name]; }
    });
    Object.keys(state.ranges).forEach(function (name) {
      if (!known(name) || columns[name].kind !== "number") { delete state.ranges[name]; }
    });
  };

  Viewer.prototype.withheld = function (split) {
    return fetch(siteRoot + split.path + "withheld.json").then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (info) {
      return info ? "The rows of " + info.dataset + " are not published with this site: its licence (" + info.licence +
        ") decides, " + info.reason + ". A local build of the book (make book) has the full viewer." : null;
    }, function () { return null; });
  };

  Viewer.prototype.manifest = function (split) {
    var entry = this.cache[split.path] || (this.cache[split.path] = { levels: keyed(), html: keyed() });
    if (!entry.manifest) {
      entry.manifest = fetch(siteRoot + split.path + "manifest.json").then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      }).then(function (manifest) {
        if (manifest.format !== FORMAT) {
          throw new Error("unknown data format " + manifest.format);
        }
        return manifest;
      });
    }
    return entry.manifest;
  };

  /* A level's rows as the viewer holds them: per column the codes of its rows (a typed array, one to
   * four bytes a row) and its sorted distinct values (the dictionary; a paged column's values are
   * fetched a chunk at a time, for the rows on screen). The shards are fetched a few at a time and
   * copied into the columns, so that no more than a few shards' bytes are alive at once. */
  Viewer.prototype.load = function (split, level) {
    var entry = this.cache[split.path] || (this.cache[split.path] = { levels: keyed(), html: keyed() });
    return this.manifest(split).then(function (manifest) {
      if (!entry.levels[level]) {
        var info = own(manifest.levels, level);
        if (!info) {
          throw new Error("no " + level + " level");
        }
        entry.levels[level] = loadLevel(siteRoot + split.path, info).then(function (columns) {
          return { manifest: manifest, level: level, info: info, columns: columns, rows: info.rows };
        });
      }
      return entry.levels[level];
    }).catch(function (error) {
      delete entry.levels[level];
      throw error;
    });
  };

  var CODE_ARRAYS = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array };
  var PARALLEL_FETCHES = 4;
  /* Chunks of a paged column's dictionary kept at most (those of the rows on screen are kept). */
  var PAGES_KEPT = 8;

  /* Run ``task(item)`` (a promise) for every item, at most ``limit`` at a time. */
  function eachLimited(items, limit, task) {
    var next = 0;
    function worker() {
      if (next >= items.length) {
        return Promise.resolve();
      }
      var item = items[next];
      next += 1;
      return task(item).then(worker);
    }
    var workers = [];
    for (var k = 0; k < Math.min(limit, items.length); k += 1) { workers.push(worker()); }
    return Promise.all(workers);
  }

  /* A column whose codes are not held for every row: a paged one (shown and sorted by, never
   * searched or filtered) and a hidden number (the row's dialogue, read when a row is opened). It is
   * written in small shards of its own, read for the rows on screen, or for every row when sorted by. */
  function isLazy(c) {
    return !!c.shards;
  }

  /* Where a shard's block of a column starts in the shard's bytes (each block padded to 4 bytes). */
  function blockOffset(info, k, name) {
    var offset = 0;
    for (var c = 0; c < info.columns.length && info.columns[c].name !== name; c += 1) {
      if (!isLazy(info.columns[c])) {
        offset += Math.ceil((info.shards[k].rows * info.columns[c].bytes) / 4) * 4;
      }
    }
    return offset;
  }

  /* Where each shard of ``shards`` starts, in rows. */
  function shardStarts(shards) {
    var starts = [];
    var at = 0;
    shards.forEach(function (shard) { starts.push(at); at += shard.rows; });
    return starts;
  }

  function loadLevel(base, info) {
    var columns = keyed();
    var starts = shardStarts(info.shards);
    var list = info.columns.map(function (c) {
      var column = {
        name: c.name, kind: c.kind, stored: c.stored, size: c.size, chunk: c.chunk, files: c.dictionary,
        paged: !!c.paged, splitLengths: c.split_lengths || null, lazy: isLazy(c), Type: CODE_ARRAYS[c.bytes],
        codes: isLazy(c) ? null : new CODE_ARRAYS[c.bytes](info.rows), dict: null, pages: {}, lower: null,
        shardCodes: {}, base: base, rows: info.rows, shards: c.shards || null,
        starts: c.shards ? shardStarts(c.shards) : null
      };
      columns[c.name] = column;
      return column;
    });
    var held = list.filter(function (column) { return !column.lazy; });
    var shards = eachLimited(info.shards.map(function (shard, k) { return k; }), PARALLEL_FETCHES, function (k) {
      var shard = info.shards[k];
      return fetchBytes(base + shard.file).then(function (buffer) {
        held.forEach(function (column) {
          column.codes.set(new column.Type(buffer, blockOffset(info, k, column.name), shard.rows), starts[k]);
        });
      });
    });
    var dictionaries = eachLimited(list.filter(function (c) { return !c.paged; }), PARALLEL_FETCHES, function (column) {
      return Promise.all(column.files.map(function (file) { return fetchJson(base + file); })).then(function (parts) {
        column.dict = [].concat.apply([], parts);
      });
    });
    return Promise.all([shards, dictionaries]).then(function () { return columns; });
  }

  /* The shard holding ``row``. */
  function shardOf(column, row) {
    var low = 0;
    var high = column.starts.length - 1;
    while (low < high) {
      var middle = (low + high + 1) >> 1;
      if (column.starts[middle] <= row) { low = middle; } else { high = middle - 1; }
    }
    return low;
  }

  /* The code of a cell, or -1 while a lazy column's shard is not fetched. */
  function codeAt(column, row) {
    if (column.codes) {
      return column.codes[row];
    }
    var k = shardOf(column, row);
    var codes = column.shardCodes[k];
    return codes && codes.values ? codes.values[row - column.starts[k]] : -1;
  }

  /* Fetch a lazy column's codes for ``rows`` (the shards holding them; the last SHARDS_KEPT kept).
   * Resolves true once they are there, when some were not at first. */
  var SHARDS_KEPT = 32;

  function ensureCodes(column, rows) {
    if (column.codes) {
      return Promise.resolve(false);
    }
    var wanted = {};
    rows.forEach(function (row) { wanted[shardOf(column, row)] = true; });
    var kept = Object.keys(column.shardCodes).filter(function (k) { return !wanted[k]; });
    kept.slice(0, Math.max(0, kept.length + Object.keys(wanted).length - SHARDS_KEPT)).forEach(function (k) {
      delete column.shardCodes[k];
    });
    var waited = false;
    return Promise.all(Object.keys(wanted).map(function (key) {
      var k = Number(key);
      var entry = column.shardCodes[k];
      if (!entry) {
        entry = column.shardCodes[k] = { values: null };
        var base = column.base; // the split's directory, under the site's root
        entry.ready = fetchBytes(base + column.shards[k].file).then(function (buffer) {
          entry.values = new column.Type(buffer, 0, column.shards[k].rows);
        }, function (error) { delete column.shardCodes[k]; throw error; });
      }
      waited = waited || entry.values === null;
      return entry.ready;
    })).then(function () { return waited; });
  }

  /* Every code of a lazy column (to sort by it): fetched once, then held like the others'. */
  function loadAllCodes(column) {
    if (!column.allCodes) {
      var codes = new column.Type(column.rows);
      var base = column.base; // the split's directory, under the site's root
      column.allCodes = eachLimited(column.shards.map(function (shard, k) { return k; }), PARALLEL_FETCHES, function (k) {
        return fetchBytes(base + column.shards[k].file).then(function (buffer) {
          codes.set(new column.Type(buffer, 0, column.shards[k].rows), column.starts[k]);
        });
      }).then(function () {
        column.codes = codes;
        column.shardCodes = {};
      }, function (error) {
        column.allCodes = null;
        throw error;
      });
    }
    return column.allCodes;
  }

  /* A cell's value: null when missing, undefined while a lazy column's codes or a paged column's
   * values are not fetched. */
  function cell(column, row) {
    var code = codeAt(column, row);
    if (code === -1) {
      return undefined;
    }
    if (code === column.size) {
      return null;
    }
    if (column.dict) {
      return column.dict[code];
    }
    var page = column.pages[Math.floor(code / column.chunk)];
    return page && page.values ? page.values[code % column.chunk] : undefined;
  }

  /* A cell's value once its codes and values are fetched. */
  function cellLater(column, row) {
    return ensureCodes(column, [row]).then(function () {
      return column.paged ? ensurePages(column, [row]) : null;
    }).then(function () { return cell(column, row); });
  }

  /* Fetch the chunks of a paged column that ``rows`` show; forget those no row on screen needs
   * beyond the last PAGES_KEPT. Resolves true once every chunk is there, when one was not at first. */
  function ensurePages(column, rows) {
    var wanted = {};
    rows.forEach(function (row) {
      var code = codeAt(column, row);
      if (code !== column.size && code !== -1) { wanted[Math.floor(code / column.chunk)] = true; }
    });
    var kept = Object.keys(column.pages).filter(function (k) { return !wanted[k]; });
    kept.slice(0, Math.max(0, kept.length + Object.keys(wanted).length - PAGES_KEPT)).forEach(function (k) {
      delete column.pages[k];
    });
    var base = column.base; // the split's directory, under the site's root
    var waited = false;
    return Promise.all(Object.keys(wanted).map(function (k) {
      var page = column.pages[k];
      if (!page) {
        page = column.pages[k] = { values: null };
        page.ready = fetchJson(base + column.files[Number(k)]).then(function (values) { page.values = values; },
          function (error) { delete column.pages[k]; throw error; });
      }
      waited = waited || page.values === null;
      return page.ready;
    })).then(function () { return waited; });
  }

  /* A column's distinct values as searched: lower-case, runs of spaces as one, lists joined. */
  var SPACES = /\s\s|[\t\n\r\f\v\u00a0\u3000]/;
  var LOWER_KEPT = 20000;

  function lowered(column) {
    if (column.lower) {
      return column.lower;
    }
    var lower = column.dict.map(function (value) {
      var text = (Array.isArray(value) ? value.join(" ") : String(value)).toLowerCase();
      return SPACES.test(text) ? text.replace(/\s+/g, " ") : text;
    });
    // kept for the next search only where small: a copy of every text (the turns' 166,787 of the WoW
    // train) would double the memory the level takes, for some 10 ms a search
    if (column.size <= LOWER_KEPT) {
      column.lower = lower;
    }
    return lower;
  }

  /* Which codes of a column hold ``needle`` (one byte per distinct value, and 0 for missing). */
  function codesHolding(column, needle, lower) {
    lower = lower || lowered(column);
    var hits = new Uint8Array(column.size + 1);
    var any = false;
    for (var k = 0; k < lower.length; k += 1) {
      if (lower[k].indexOf(needle) !== -1) { hits[k] = 1; any = true; }
    }
    return any ? hits : null;
  }

  /* -- the controls of a loaded level ----------------------------------------------------------- */

  Viewer.prototype.visibleColumns = function () {
    var columns = this.data.columns;
    return this.data.info.columns.filter(function (column) { return column.kind !== "hidden"; })
      .map(function (column) { return columns[column.name]; });
  };

  Viewer.prototype.build = function () {
    var self = this;
    var body = this.body;
    clear(body);
    body.hidden = false;
    var manifest = this.data.manifest;
    var about = make("p", "atlas-viewer-about",
      manifest.title + ", " + this.split.label + " (" + (manifest.kind || "data") + "): " + fmt(manifest.levels.dialogues ? manifest.levels.dialogues.rows : 0) +
      " dialogue rows, " + fmt(manifest.levels.turns ? manifest.levels.turns.rows : 0) + " turns, " +
      fmt(manifest.levels.evidence ? manifest.levels.evidence.rows : 0) + " evidence rows.");
    body.appendChild(about);
    if (manifest.note) {
      body.appendChild(make("p", "atlas-viewer-note", manifest.note));
    }
    var searchRow = make("div", "atlas-viewer-searchrow");
    var label = make("label", "atlas-viewer-control", "Search ");
    this.searchInput = make("input", "atlas-viewer-search");
    this.searchInput.type = "search";
    this.searchInput.placeholder = 'words, ids, glosses, or "an exact phrase"';
    this.searchInput.maxLength = SEARCH_CAP;
    this.searchInput.value = this.state.q;
    label.appendChild(this.searchInput);
    searchRow.appendChild(label);
    this.searchNote = make("span", "atlas-viewer-searchcap", "up to " + SEARCH_CAP + " characters");
    searchRow.appendChild(this.searchNote);
    var reset = button("Clear filters", "atlas-viewer-reset");
    searchRow.appendChild(reset);
    this.count = make("span", "atlas-viewer-count");
    this.count.setAttribute("aria-live", "polite");
    searchRow.appendChild(this.count);
    this.link = make("a", "atlas-viewer-link", "link to this view");
    searchRow.appendChild(this.link);
    body.appendChild(searchRow);
    var typing = null;
    this.searchInput.addEventListener("input", function () {
      clearTimeout(typing);
      typing = setTimeout(function () {
        self.searchCut = self.searchInput.value.length > SEARCH_CAP; // set by a script, past the box's maxlength
        if (self.searchCut) {
          self.searchInput.value = self.searchInput.value.slice(0, SEARCH_CAP);
        }
        self.state.q = self.searchInput.value;
        self.state.page = 0;
        self.refresh();
      }, 150);
    });
    reset.addEventListener("click", function () {
      self.state.q = "";
      self.searchInput.value = "";
      self.state.facets = keyed();
      self.state.ranges = keyed();
      self.state.page = 0;
      self.buildFilters();
      self.refresh();
    });

    this.filters = make("details", "atlas-viewer-filters");
    this.filters.appendChild(make("summary", null, "Filters: labels and ranges"));
    this.filterBox = make("div", "atlas-viewer-filterbox");
    this.filters.appendChild(this.filterBox);
    this.filters.open = window.innerWidth > 700;
    body.appendChild(this.filters);
    this.buildFilters();

    var scroller = make("div", "atlas-viewer-scroll");
    this.table = make("table", "atlas-viewer-grid");
    scroller.appendChild(this.table);
    body.appendChild(scroller);
    var pager = make("div", "atlas-viewer-pager");
    this.prev = button("\u25c0 previous", "atlas-viewer-prev");
    this.next = button("next \u25b6", "atlas-viewer-next");
    this.pageText = make("span", "atlas-viewer-page");
    pager.appendChild(this.prev);
    pager.appendChild(this.pageText);
    pager.appendChild(this.next);
    body.appendChild(pager);
    this.prev.addEventListener("click", function () { self.state.page -= 1; self.refresh(); });
    this.next.addEventListener("click", function () { self.state.page += 1; self.refresh(); });

    this.detail = make("div", "atlas-viewer-detail");
    this.detail.hidden = true;
    body.appendChild(this.detail);

    this.statsBox = make("details", "atlas-viewer-stats");
    this.statsBox.appendChild(make("summary", null, "Column statistics"));
    this.statsBody = make("div", "atlas-viewer-statsbody");
    this.statsBox.appendChild(this.statsBody);
    this.statsBox.addEventListener("toggle", function () { self.drawStats(); });
    body.appendChild(this.statsBox);

    this.buildSql();
  };

  Viewer.prototype.buildFilters = function () {
    var self = this;
    clear(this.filterBox);
    this.chips = [];
    this.visibleColumns().forEach(function (column) {
      if (column.kind === "label" || column.kind === "labels") {
        var totals = valueCounts(column, codeCounts(column, null, self.data.rows));
        var names = Object.keys(totals);
        if (!names.length || names.length > 60) {
          return;
        }
        names.sort(function (a, b) { return totals[b] - totals[a] || (a < b ? -1 : a > b ? 1 : 0); });
        var group = make("fieldset", "atlas-viewer-facet");
        group.setAttribute("data-column", column.name);
        group.appendChild(make("legend", null, column.name + (column.kind === "labels" ? " (any of a row's labels)" : "")));
        names.forEach(function (value) {
          var chip = make("label", "atlas-viewer-chip");
          chip.setAttribute("data-value", value);
          var input = make("input");
          input.type = "checkbox";
          input.checked = (self.state.facets[column.name] || []).indexOf(value) !== -1;
          var count = make("span", "atlas-viewer-chip-count");
          chip.appendChild(input);
          chip.appendChild(make("span", null, value));
          chip.appendChild(count);
          group.appendChild(chip);
          input.addEventListener("change", function () {
            var chosen = self.state.facets[column.name] || [];
            chosen = chosen.filter(function (v) { return v !== value; });
            if (input.checked) { chosen.push(value); }
            if (chosen.length) { self.state.facets[column.name] = chosen; } else { delete self.state.facets[column.name]; }
            self.state.page = 0;
            self.refresh();
          });
          self.chips.push({ column: column.name, value: value, count: count, chip: chip });
        });
        self.filterBox.appendChild(group);
      } else if (column.kind === "number") {
        var box = make("fieldset", "atlas-viewer-range");
        box.setAttribute("data-column", column.name);
        box.appendChild(make("legend", null, column.name));
        var current = self.state.ranges[column.name] || [null, null];
        ["from", "to"].forEach(function (end, k) {
          var field = make("label", null, end + " ");
          var input = make("input", "atlas-viewer-range-" + end);
          input.type = "number";
          input.step = "any";
          input.value = current[k] === null ? "" : String(current[k]);
          field.appendChild(input);
          box.appendChild(field);
          input.addEventListener("change", function () {
            var range = self.state.ranges[column.name] || [null, null];
            range[k] = input.value === "" ? null : Number(input.value);
            if (range[0] === null && range[1] === null) { delete self.state.ranges[column.name]; } else { self.state.ranges[column.name] = range; }
            self.state.page = 0;
            self.refresh();
          });
        });
        self.filterBox.appendChild(box);
      }
    });
  };

  /* How many rows of ``rows`` (all when null) have each code of ``column``. */
  function codeCounts(column, rows, n) {
    var counts = new Float64Array(column.size + 1);
    var codes = column.codes;
    if (rows === null) {
      for (var i = 0; i < n; i += 1) { counts[codes[i]] += 1; }
    } else {
      for (var j = 0; j < rows.length; j += 1) { counts[codes[rows[j]]] += 1; }
    }
    return counts;
  }

  /* Value -> count, from the counts of a label or labels column's codes (a list counts under each label). */
  function valueCounts(column, counts) {
    var out = keyed();
    for (var k = 0; k < column.size; k += 1) {
      if (!counts[k]) { continue; }
      var value = column.dict[k];
      (Array.isArray(value) ? value : [value]).forEach(function (v) { out[v] = (out[v] || 0) + counts[k]; });
    }
    return out;
  }

  /* One byte per code of ``column``: 1 where ``test(value)`` holds (missing: 0). */
  function codesWhere(column, test) {
    var keep = new Uint8Array(column.size + 1);
    for (var k = 0; k < column.size; k += 1) { keep[k] = test(column.dict[k]) ? 1 : 0; }
    return keep;
  }

  /* Rows that pass the search, the ranges and each label filter, as separate masks (for the chip
   * counts). Every test is made once per distinct value, then read per row through its code. */
  Viewer.prototype.masks = function () {
    var data = this.data;
    var n = data.rows;
    var state = this.state;
    // one buffer for the level, reused by every refresh: allocating millions of bytes per click
    // leaves the browser holding them long after (the evidence level of the full WoW train)
    if (!this.baseBuffer || this.baseBuffer.length !== n) {
      this.baseBuffer = new Uint8Array(n);
    }
    var base = this.baseBuffer.fill(1);
    var searched = this.searchable();
    var lowers = searched.map(function () { return null; }); // each column lowered once per search
    var needles = parseQuery(state.q);
    var started = performance.now();
    this.searchStopped = 0;
    for (var w = 0; w < needles.length; w += 1) {
      if (w > 0 && performance.now() - started > SEARCH_BUDGET_MS) {
        this.searchStopped = w; // the rows shown hold the first w words; the reader is told
        break;
      }
      var hits = [];
      var codes = [];
      for (var s = 0; s < searched.length; s += 1) {
        lowers[s] = lowers[s] || lowered(searched[s]);
        var found = codesHolding(searched[s], needles[w], lowers[s]);
        if (found) { hits.push(found); codes.push(searched[s].codes); }
      }
      for (var i = 0; i < n; i += 1) {
        if (!base[i]) { continue; }
        var ok = 0;
        for (var c = 0; c < hits.length && !ok; c += 1) { ok = hits[c][codes[c][i]]; }
        base[i] = ok;
      }
    }
    this.searchWords = needles.length;
    Object.keys(state.ranges).forEach(function (name) {
      var column = data.columns[name];
      var range = state.ranges[name];
      if (!column || !column.dict) { return; }
      var keep = codesWhere(column, function (v) {
        return !((range[0] !== null && v < range[0]) || (range[1] !== null && v > range[1]));
      });
      var codes = column.codes;
      for (var i = 0; i < n; i += 1) {
        if (!keep[codes[i]]) { base[i] = 0; }
      }
    });
    var facetMasks = keyed();
    Object.keys(state.facets).forEach(function (name) {
      var column = data.columns[name];
      if (!column || !column.dict) { return; }
      var wanted = keyed();
      state.facets[name].forEach(function (v) { wanted[v] = true; });
      var keep = codesWhere(column, function (v) {
        if (Array.isArray(v)) {
          for (var j = 0; j < v.length; j += 1) { if (wanted[v[j]]) { return true; } }
          return false;
        }
        return wanted[v] === true;
      });
      facetMasks[name] = { keep: keep, codes: column.codes };
    });
    return { base: base, facets: facetMasks };
  };

  /* True when row ``i`` passes every facet of ``facets`` (a list of {keep, codes}). */
  function passes(facets, i) {
    for (var f = 0; f < facets.length; f += 1) {
      if (!facets[f].keep[facets[f].codes[i]]) { return false; }
    }
    return true;
  }

  /* The columns a search reads: every string column of the row (labels, ids and glosses too), but a
   * paged one, whose values the browser does not hold. */
  Viewer.prototype.searchable = function () {
    var data = this.data;
    return Object.keys(data.columns).map(function (name) { return data.columns[name]; }).filter(function (column) {
      return column.stored !== "number" && !column.lazy;
    });
  };

  Viewer.prototype.refresh = function (first) {
    var t0 = performance.now();
    var data = this.data;
    var masks = this.masks();
    var facets = Object.keys(masks.facets).map(function (name) { return masks.facets[name]; });
    var base = masks.base;
    var n = data.rows;
    if (facets.length) {
      for (var i = 0; i < n; i += 1) {
        if (base[i] && !passes(facets, i)) { base[i] = 2; } // 2: passes all but a facet (for the chips)
      }
    }
    this.matches = this.sortRows(base);
    var count = this.matches.length;
    this.updateChips(masks);
    this.holder.setAttribute("data-refresh-ms", String(Math.round(performance.now() - t0)));
    var pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
    this.state.page = Math.min(Math.max(0, this.state.page), pages - 1);
    this.drawGrid();
    this.count.textContent = fmt(count) + " of " + fmt(n) + " " + data.level + " rows match";
    this.holder.setAttribute("data-matches", String(count));
    this.holder.setAttribute("data-rows", String(n));
    this.showSearchLimits();
    this.pageText.textContent = "page " + fmt(this.state.page + 1) + " of " + fmt(pages);
    this.prev.disabled = this.state.page === 0;
    this.next.disabled = this.state.page >= pages - 1;
    if (!this.sorting) { this.status.textContent = ""; }
    this.drawStats();
    this.saveHash(first);
  };

  /* Next to the search box: its cap, and whether this search was cut or stopped early. */
  Viewer.prototype.showSearchLimits = function () {
    var text = "up to " + SEARCH_CAP + " characters";
    if (this.searchCut) {
      text = "cut to its first " + SEARCH_CAP + " characters, the most a search reads";
    }
    if (this.searchStopped) {
      text += "; stopped after " + SEARCH_BUDGET_MS / 1000 + " s: the rows shown hold its first " +
        fmt(this.searchStopped) + " of " + fmt(this.searchWords) + " words";
    }
    this.searchNote.textContent = "(" + text + ")";
    this.holder.setAttribute("data-search", this.state.q);
    this.holder.setAttribute("data-search-cut", this.searchCut ? "1" : "0");
    this.holder.setAttribute("data-search-stopped", String(this.searchStopped || 0));
  };

  /* The rows whose byte in ``keep`` is 1, in the order of the sorted column (else in file order), in
   * one array: a counting sort of their codes, which follow the order of the values; ties keep the
   * rows' order and missing values come last either way. */
  Viewer.prototype.sortRows = function (keep) {
    var self = this;
    var n = keep.length;
    var count = 0;
    for (var i = 0; i < n; i += 1) { count += keep[i] === 1 ? 1 : 0; }
    var sorted = new Uint32Array(count);
    var column = this.state.sort ? this.data.columns[this.state.sort] : null;
    if (column && !column.codes) {
      // a lazy column: its codes for every row are fetched first, then the rows sorted again
      var data = this.data;
      this.status.textContent = "Loading every value of " + column.name + " to sort by it\u2026";
      this.holder.setAttribute("data-viewer-state", "loading");
      this.sorting = true;
      loadAllCodes(column).then(function () {
        self.sorting = false;
        if (self.data === data) {
          self.refresh();
          self.holder.setAttribute("data-viewer-state", "ready");
        }
      }, function (error) {
        self.sorting = false;
        self.status.textContent = "The values of " + column.name + " could not be loaded (" + error.message + ").";
        self.holder.setAttribute("data-viewer-state", "ready");
      });
      column = null;
    }
    if (!column) {
      for (var r = 0, at = 0; r < n; r += 1) {
        if (keep[r] === 1) { sorted[at] = r; at += 1; }
      }
      return sorted;
    }
    var size = column.size;
    var codes = column.codes;
    var desc = this.state.desc;
    var starts = new Uint32Array(size + 2);
    for (var j = 0; j < n; j += 1) {
      if (keep[j] !== 1) { continue; }
      var code = codes[j];
      starts[(code === size || !desc ? code : size - 1 - code) + 1] += 1;
    }
    for (var k = 1; k < starts.length; k += 1) { starts[k] += starts[k - 1]; }
    for (var row = 0; row < n; row += 1) {
      if (keep[row] !== 1) { continue; }
      var c = codes[row];
      var slot = c === size || !desc ? c : size - 1 - c;
      sorted[starts[slot]] = row;
      starts[slot] += 1;
    }
    return sorted;
  };

  Viewer.prototype.updateChips = function (masks) {
    var data = this.data;
    var self = this;
    var counts = keyed();
    var names = Object.keys(masks.facets);
    var base = masks.base; // 1: passes everything; 2: passes the search and ranges but a facet
    var columns = keyed();
    this.chips.forEach(function (chip) { columns[chip.column] = true; });
    Object.keys(columns).forEach(function (name) {
      // rows passing every filter but this column's own
      var others = names.filter(function (other) { return other !== name; }).map(function (other) {
        return masks.facets[other];
      });
      var column = data.columns[name];
      var perCode = new Float64Array(column.size + 1);
      var codes = column.codes;
      for (var i = 0; i < data.rows; i += 1) {
        if (base[i] === 1 || (base[i] === 2 && passes(others, i))) { perCode[codes[i]] += 1; }
      }
      counts[name] = valueCounts(column, perCode);
    });
    this.chips.forEach(function (chip) {
      var perValue = counts[chip.column];
      var n = (perValue && perValue[chip.value]) || 0;
      chip.count.textContent = fmt(n);
      chip.chip.setAttribute("data-count", String(n));
      chip.chip.classList.toggle("atlas-viewer-chip-empty", n === 0);
      chip.chip.querySelector("input").checked = (self.state.facets[chip.column] || []).indexOf(chip.value) !== -1;
    });
  };

  Viewer.prototype.drawGrid = function () {
    var self = this;
    var data = this.data;
    clear(this.table);
    var columns = this.visibleColumns();
    var head = make("thead");
    var headRow = make("tr");
    columns.forEach(function (column) {
      var th = make("th");
      th.setAttribute("data-column", column.name);
      var sortButton = button(column.name, "atlas-viewer-sort");
      var sorted = self.state.sort === column.name;
      th.setAttribute("aria-sort", sorted ? (self.state.desc ? "descending" : "ascending") : "none");
      if (sorted) { sortButton.textContent = column.name + (self.state.desc ? " \u25bc" : " \u25b2"); }
      sortButton.title = "sort by " + column.name;
      sortButton.addEventListener("click", function () {
        if (self.state.sort === column.name) {
          self.state.desc = !self.state.desc;
        } else {
          self.state.sort = column.name;
          self.state.desc = false;
        }
        self.state.page = 0;
        self.refresh();
      });
      th.appendChild(sortButton);
      headRow.appendChild(th);
    });
    head.appendChild(headRow);
    this.table.appendChild(head);
    var tbody = make("tbody");
    var start = this.state.page * PAGE_SIZE;
    var idColumn = data.columns[data.info.id];
    var shown = Array.prototype.slice.call(this.matches.subarray(start, start + PAGE_SIZE));
    var waiting = [];
    shown.forEach(function (rowIndex) {
      var tr = make("tr", "atlas-viewer-row");
      tr.tabIndex = 0;
      var id = cell(idColumn, rowIndex);
      tr.setAttribute("data-row", String(rowIndex));
      tr.setAttribute("data-id", String(id));
      columns.forEach(function (column) {
        var value = cell(column, rowIndex);
        if (value === undefined && waiting.indexOf(column) === -1) { waiting.push(column); }
        var text = value === undefined ? "\u2026" : Array.isArray(value) ? value.join(", ") : value === null ? ""
          : column.kind === "number" ? fmt(value) : String(value);
        var td = make("td", "atlas-viewer-" + column.kind, text.length > 160 ? text.slice(0, 159) + "\u2026" : text);
        if (text.length > 160) { td.title = text; }
        tr.appendChild(td);
      });
      var open = function () { self.openRowAt(rowIndex); };
      tr.addEventListener("click", open);
      tr.addEventListener("keydown", function (event) {
        if (event.key === "Enter") { open(); event.preventDefault(); }
      });
      tbody.appendChild(tr);
    });
    this.table.appendChild(tbody);
    this.holder.setAttribute("data-grid-waiting", String(waiting.length));
    // the codes of lazy columns and the values of paged ones for these rows: fetched, then the same
    // page drawn again
    var matches = this.matches;
    var page = this.state.page;
    columns.filter(function (column) { return column.lazy; }).forEach(function (column) {
      ensureCodes(column, shown).then(function (fetchedCodes) {
        return ensurePages(column, shown).then(function (fetched) { return fetched || fetchedCodes; });
      }).then(function (fetched) {
        if (fetched && self.matches === matches && self.state.page === page) {
          self.drawGrid();
        }
      }, function (error) {
        self.status.textContent = "The values of " + column.name + " could not be loaded (" + error.message + ").";
      });
    });
  };

  Viewer.prototype.saveHash = function (first) {
    var hash = writeHash(this.state);
    this.link.setAttribute("href", hash);
    if (window.location.hash !== hash) {
      this.ownHash = hash;
      history.replaceState(null, "", hash);
    }
  };

  /* -- opening a row ----------------------------------------------------------------------------- */

  Viewer.prototype.openRow = function (id) {
    var data = this.data;
    var ids = data.columns[data.info.id];
    var at = -1;
    var code = ids.dict && ids.codes ? ids.dict.indexOf(id) : -1;
    for (var i = 0; code !== -1 && i < data.rows && at === -1; i += 1) {
      if (ids.codes[i] === code) { at = i; }
    }
    if (at === -1) {
      // an id of a record the row groups (a KILT example), searched among the row's ids
      var needle = String(id).toLowerCase();
      var hits = [];
      this.searchable().forEach(function (column) {
        var found = codesHolding(column, needle);
        if (found) { hits.push([found, column.codes]); }
      });
      for (var j = 0; j < data.rows && at === -1 && hits.length; j += 1) {
        for (var c = 0; c < hits.length; c += 1) {
          if (hits[c][0][hits[c][1][j]]) { at = j; break; }
        }
      }
    }
    if (at === -1) {
      this.detail.hidden = false;
      clear(this.detail);
      this.detail.appendChild(make("p", "atlas-viewer-note", "No row of " + this.split.label + " has the id " + id + "."));
      return Promise.resolve();
    }
    return this.openRowAt(at);
  };

  Viewer.prototype.openRowAt = function (rowIndex) {
    var self = this;
    var data = this.data;
    var id = cell(data.columns[data.info.id], rowIndex);
    this.state.row = String(id);
    this.saveHash();
    return cellLater(data.columns._dialogue, rowIndex).then(function (dialogue) {
      return self.showDialogue(dialogue, id);
    });
  };

  Viewer.prototype.showDialogue = function (dialogue, id) {
    var self = this;
    var data = this.data;
    var entry = this.cache[this.split.path];
    var per = data.manifest.html.per_shard;
    var shard = Math.floor(dialogue / per);
    if (!entry.html[shard]) {
      entry.html[shard] = fetchJson(siteRoot + this.split.path + data.manifest.html.shards[shard]);
    }
    return entry.html[shard].then(function (list) {
      clear(self.detail);
      self.detail.hidden = false;
      var head = make("div", "atlas-viewer-detail-head");
      head.appendChild(make("strong", null, self.split.label + ": " + data.info.id + " " + id));
      var close = button("close", "atlas-viewer-close");
      close.addEventListener("click", function () {
        self.detail.hidden = true;
        self.state.row = null;
        self.saveHash();
      });
      head.appendChild(close);
      self.detail.appendChild(head);
      var view = make("div", "atlas-viewer-rendering");
      view.innerHTML = list[dialogue - shard * per]; // rendered and escaped by the atlas's renderers
      self.detail.appendChild(view);
      self.detail.setAttribute("data-id", String(id));
      self.detail.scrollIntoView({ block: "nearest" });
    });
  };

  /* -- column statistics ------------------------------------------------------------------------- */

  Viewer.prototype.drawStats = function () {
    if (!this.statsBox || !this.statsBox.open) {
      return;
    }
    var self = this;
    var data = this.data;
    var rows = this.matches;
    clear(this.statsBody);
    this.statsBody.appendChild(make("p", "atlas-viewer-note",
      "Of the " + fmt(rows.length) + " matching " + data.level + " rows (of " + fmt(data.rows) + " in the split). " +
      "Numbers: min, max, mean, median, standard deviation (n \u2212 1) and a histogram; text and lists: their lengths; " +
      "labels: every value with its count."));
    this.visibleColumns().forEach(function (column) {
      var box = make("div", "atlas-viewer-stat");
      box.setAttribute("data-column", column.name);
      box.setAttribute("data-kind", column.kind);
      box.appendChild(make("div", "atlas-viewer-stat-title", column.name + " (" + column.kind + ")"));
      var perCode = column.paged ? null : codeCounts(column, rows.length === data.rows ? null : rows, data.rows);
      var missing = perCode ? perCode[column.size] : 0;
      var counts = keyed();
      var numbers = null;
      if (column.paged) {
        // its values are not held here: the lengths over the split were computed with the files
        if (rows.length === data.rows && column.splitLengths) {
          numbers = column.splitLengths;
        } else {
          box.appendChild(make("div", "atlas-viewer-stat-summary", "not computed for a filter: " + fmt(column.size) +
            " distinct values, fetched only for the rows on screen"));
          self.statsBody.appendChild(box);
          return;
        }
      } else {
        if (column.kind === "label" || column.kind === "labels") {
          counts = valueCounts(column, perCode);
        }
        if (column.kind !== "label") {
          var measure = column.kind === "number" ? function (v) { return v; }
            : column.kind === "labels" ? function (v) { return v.length; } : codePoints;
          numbers = new Float64Array(rows.length - missing);
          for (var k = 0, at = 0; k < column.size; k += 1) {
            if (!perCode[k]) { continue; }
            numbers.fill(measure(column.dict[k]), at, at + perCode[k]);
            at += perCode[k];
          }
        }
      }
      if (column.kind !== "label") {
        var stats = numbers.length === undefined ? numbers : describe(numbers);
        ["count", "min", "max", "mean", "median", "std"].forEach(function (key) {
          if (stats[key] !== undefined && stats[key] !== null) { box.setAttribute("data-" + key, String(stats[key])); }
        });
        var what = column.kind === "number" ? "" : column.kind === "labels" ? "labels per row: " : "length (characters): ";
        box.appendChild(make("div", "atlas-viewer-stat-summary", what + (stats.count ?
          "min " + fmt(stats.min) + " \u00b7 max " + fmt(stats.max) + " \u00b7 mean " + fmt(stats.mean) +
          " \u00b7 median " + fmt(stats.median) + " \u00b7 std " + fmt(stats.std) + " \u00b7 " + fmt(stats.count) + " values"
          : "no values") + (missing ? " \u00b7 " + fmt(missing) + " missing" : "")));
        box.appendChild(histogram(stats, column.name));
      }
      if (column.kind === "label" || column.kind === "labels") {
        var list = make("ul", "atlas-viewer-values");
        Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : a > b ? 1 : 0); })
          .forEach(function (value) {
            var li = make("li");
            li.setAttribute("data-value", value);
            li.setAttribute("data-count", String(counts[value]));
            var track = make("span", "atlas-viewer-track");
            var fill = make("span", "atlas-viewer-fill");
            fill.style.width = (100 * counts[value]) / Math.max(rows.length, 1) + "%";
            track.appendChild(fill);
            li.appendChild(make("span", "atlas-viewer-value", value));
            li.appendChild(track);
            li.appendChild(make("span", "atlas-viewer-number", fmt(counts[value])));
            list.appendChild(li);
          });
        if (missing) {
          list.appendChild(make("li", "atlas-viewer-missing", "missing: " + fmt(missing)));
        }
        box.appendChild(list);
      }
      self.statsBody.appendChild(box);
    });
  };

  /* The length of a string as Python counts it (code points, not UTF-16 units). */
  function codePoints(text) {
    var n = text.length;
    for (var i = 0; i < text.length; i += 1) {
      var code = text.charCodeAt(i);
      if (code >= 0xdc00 && code <= 0xdfff) { n -= 1; }
    }
    return n;
  }

  /* -- SQL console ------------------------------------------------------------------------------- */

  var duck = null;

  /* Run once DuckDB connects, before any table is made or any query runs. A query is the reader's (or
   * a link's) text, so DuckDB must neither reach the network nor read the site's own files: no
   * extension is installed or loaded on demand (JSON, Parquet, time zones, full-text search would be
   * fetched from extensions.duckdb.org), no file or URL is read, written, attached or listed
   * (read_csv, read_text, ATTACH, COPY TO, glob), and the configuration is locked, so that a query
   * cannot turn any of this back on. The tables are given to DuckDB as Arrow data from this script,
   * which needs no external access. */
  var LOCKDOWN = [
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET enable_external_access = false",
    "SET lock_configuration = true"
  ];

  function loadScript(url) {
    return new Promise(function (resolve, reject) {
      var element = document.createElement("script");
      element.src = url;
      element.onload = resolve;
      element.onerror = function () { reject(new Error("could not load " + url)); };
      document.head.appendChild(element);
    });
  }

  function loadDuckDB() {
    if (duck) {
      return duck;
    }
    var base = siteRoot + "_static/vendor/duckdb/";
    // Arrow's bundle defines the global Arrow, unless an AMD loader on the page takes it: hide that loader.
    var define = window.define;
    window.define = undefined;
    duck = loadScript(base + "Arrow.es2015.min.js").then(function () {
      window.define = define;
      return import(base + "duckdb-browser.mjs");
    }).then(function (duckdb) {
      var worker = new Worker(base + "duckdb-browser-eh.worker.js");
      var db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
      return db.instantiate(base + "duckdb-eh.wasm").then(function () {
        return db.connect();
      }).then(function (conn) {
        // closed before any table is made or any query runs (see LOCKDOWN)
        var closing = Promise.resolve();
        LOCKDOWN.forEach(function (sql) { closing = closing.then(function () { return conn.query(sql); }); });
        return closing.then(function () { return { db: db, conn: conn }; });
      });
    });
    duck.catch(function () { duck = null; window.define = define; });
    return duck;
  }

  // A book built without npm has no DuckDB-WASM (its pages carry this meta tag): the console says so.
  var SQL_MISSING = "This book was built without npm, so its SQL console (DuckDB-WASM) is not part of it. " +
    "To have it, install Node.js and npm (make system-deps) and build the book again.";
  function sqlConsoleMissing() {
    return document.querySelector('meta[name="atlas-sql-console"][content="missing"]') !== null;
  }

  Viewer.prototype.buildSql = function () {
    var self = this;
    var box = (this.sqlBox = make("details", "atlas-viewer-sql"));
    box.appendChild(make("summary", null, "SQL console (DuckDB, in your browser)" +
      (sqlConsoleMissing() ? ": not in this build" : "")));
    if (sqlConsoleMissing()) {
      box.appendChild(make("p", "atlas-viewer-note atlas-viewer-sql-missing", SQL_MISSING));
    }
    box.appendChild(make("p", "atlas-viewer-note",
      "Tables: dialogues, turns and evidence of this split, with the columns of the grid (label columns holding " +
      "lists: unnest or list_contains them). DuckDB-WASM is served by this book and runs in your browser, closed to " +
      "the network: a query reads only these tables (no file, URL or extension is read, written or fetched), so " +
      "nothing leaves your browser."));
    var examples = make("select", "atlas-viewer-examples");
    var none = make("option", null, "example queries\u2026");
    none.value = "";
    examples.appendChild(none);
    (this.data.manifest.queries || []).forEach(function (query, i) {
      var option = make("option", null, query.title);
      option.value = String(i);
      examples.appendChild(option);
    });
    box.appendChild(examples);
    this.sqlText = make("textarea", "atlas-viewer-sqltext");
    this.sqlText.rows = 5;
    this.sqlText.spellcheck = false;
    this.sqlText.setAttribute("aria-label", "SQL query");
    this.sqlText.value = this.state.sql || "SELECT * FROM " + this.data.level + " LIMIT 10";
    box.appendChild(this.sqlText);
    var run = button("Run", "atlas-viewer-run");
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
    var scroller = make("div", "atlas-viewer-scroll");
    this.sqlResult = make("table", "atlas-viewer-grid atlas-viewer-result");
    scroller.appendChild(this.sqlResult);
    box.appendChild(scroller);
    examples.addEventListener("change", function () {
      var query = (self.data.manifest.queries || [])[Number(examples.value)];
      if (examples.value !== "" && query) {
        self.sqlText.value = query.sql;
      }
    });
    run.addEventListener("click", function () { self.runSql(); });
    this.sqlText.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { self.runSql(); event.preventDefault(); }
    });
    this.body.appendChild(box);
  };

  function sqlName(name) {
    return '"' + String(name).replace(/"/g, '""') + '"';
  }

  /* The split's three levels as DuckDB views (again when the split changes). DuckDB gets what the
   * grid holds, as it holds it: per level a table of the columns' codes (integers) and per column a
   * table of its distinct values; the view joins them, so a text shown at many rows is stored once
   * there too. A level not on screen is loaded for this, then let go here (DuckDB keeps its copy). */
  Viewer.prototype.sqlTables = function (engine) {
    var self = this;
    var split = this.split;
    if (this.sqlTablesFor === split.path) {
      return Promise.resolve();
    }
    var Arrow = window.Arrow;
    var chain = Promise.resolve();
    this.sqlLeftOut = [];
    Object.keys(this.data.manifest.levels).forEach(function (level) {
      chain = chain.then(function () { return self.load(split, level); }).then(function (data) {
        var prefix = "_" + level;
        var statements = ["DROP VIEW IF EXISTS " + level, "DROP TABLE IF EXISTS " + level];
        var inserts = [];
        var codes = {};
        var selects = [];
        var joins = [];
        data.info.columns.forEach(function (info, k) {
          var column = data.columns[info.name];
          if (info.kind === "hidden" || column.size === 0) {
            return; // a column with no value at all (a label no row of this split carries) is not offered
          }
          if (column.lazy) {
            self.sqlLeftOut.push(level + "." + info.name);
            return;
          }
          codes["c" + k] = Arrow.makeVector(column.codes);
          var type = info.stored === "number" ? new Arrow.Float64()
            : info.stored === "labels" ? new Arrow.List(new Arrow.Field("item", new Arrow.Utf8(), true)) : new Arrow.Utf8();
          var positions = new Int32Array(column.size);
          for (var p = 0; p < column.size; p += 1) { positions[p] = p; }
          var table = prefix + "_" + k;
          statements.push("DROP TABLE IF EXISTS " + table);
          inserts.push([new Arrow.Table({ code: Arrow.makeVector(positions), value: Arrow.vectorFromArray(column.dict, type) }), table]);
          selects.push("d" + k + ".value AS " + sqlName(info.name));
          joins.push(" LEFT JOIN " + table + " d" + k + " ON d" + k + ".code = c.c" + k);
        });
        statements.push("DROP TABLE IF EXISTS " + prefix);
        inserts.push([new Arrow.Table(codes), prefix]);
        var run = Promise.resolve();
        statements.forEach(function (sql) { run = run.then(function () { return engine.conn.query(sql); }); });
        inserts.forEach(function (pair) {
          run = run.then(function () { return engine.conn.insertArrowTable(pair[0], { name: pair[1] }); });
        });
        return run.then(function () {
          return engine.conn.query("CREATE VIEW " + level + " AS SELECT " + selects.join(", ") + " FROM " + prefix + " c" +
            joins.join(""));
        }).then(function () {
          if (level !== self.state.level) {
            delete self.cache[split.path].levels[level];
          }
        });
      });
    });
    return chain.then(function () { self.sqlTablesFor = split.path; });
  };

  /* A cell of a downloaded CSV. A text starting with "=", "+", "-", "@", a tab or a carriage return
   * would be read as a formula by a spreadsheet (data could run a command or send a cell away), so
   * it gets a leading single quote, as OWASP recommends for CSV injection; numbers stay as they are
   * (a negative number is not a formula). */
  function csvCell(value) {
    if (value === null || value === undefined) {
      return "";
    }
    var text = typeof value === "object" ? JSON.stringify(value) : String(value);
    if (typeof value !== "number" && typeof value !== "bigint" && /^[=+\-@\t\r]/.test(text)) {
      text = "'" + text;
    }
    return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  function plainValue(value) {
    if (typeof value === "bigint") {
      return Number(value);
    }
    if (value && typeof value.toArray === "function") {
      return Array.from(value.toArray()).map(plainValue);
    }
    if (value && typeof value === "object" && typeof value.toJSON === "function") {
      return value.toJSON();
    }
    return value;
  }

  Viewer.prototype.runSql = function () {
    var self = this;
    var sql = this.sqlText.value.trim();
    if (!sql) {
      return Promise.resolve();
    }
    this.state.sql = sql;
    this.sqlPending.hidden = true;
    this.saveHash();
    if (sqlConsoleMissing()) {
      this.sqlStatus.textContent = SQL_MISSING;
      this.holder.setAttribute("data-sql-state", "missing");
      return Promise.resolve();
    }
    this.sqlStatus.textContent = "Starting DuckDB and loading the tables\u2026";
    this.holder.setAttribute("data-sql-state", "running");
    var started = performance.now();
    return loadDuckDB().then(function (engine) {
      return self.sqlTables(engine).then(function () { return engine.conn.query(sql); });
    }).then(function (result) {
      var names = result.schema.fields.map(function (field) { return field.name; });
      var rows = result.toArray().map(function (row) {
        return names.map(function (name) { return plainValue(row[name]); });
      });
      clear(self.sqlResult);
      var head = make("tr");
      names.forEach(function (name) { head.appendChild(make("th", null, name)); });
      var thead = make("thead");
      thead.appendChild(head);
      self.sqlResult.appendChild(thead);
      var tbody = make("tbody");
      rows.slice(0, 500).forEach(function (row) {
        var tr = make("tr");
        row.forEach(function (value) {
          tr.appendChild(make("td", null, value === null ? "" : typeof value === "object" ? JSON.stringify(value) : value));
        });
        tbody.appendChild(tr);
      });
      self.sqlResult.appendChild(tbody);
      var csv = [names.map(csvCell).join(",")].concat(rows.map(function (row) { return row.map(csvCell).join(","); }))
        .join("\r\n") + "\r\n";
      if (self.downloadUrl) { URL.revokeObjectURL(self.downloadUrl); }
      self.downloadUrl = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
      self.download.href = self.downloadUrl;
      self.download.setAttribute("download", self.split.dataset + "-" + self.split.split + "-query.csv");
      self.download.hidden = false;
      self.sqlStatus.textContent = fmt(rows.length) + " rows" + (rows.length > 500 ? " (the first 500 shown; the CSV has all)" : "") +
        " in " + fmt(Math.round(performance.now() - started)) + " ms." + (self.sqlLeftOut.length ? " Left out of the tables, " +
        "having too many distinct values to load here: " + self.sqlLeftOut.join(", ") + "." : "");
      self.holder.setAttribute("data-sql-state", "done");
      self.holder.setAttribute("data-sql-rows", String(rows.length));
    }, function (error) {
      var message = error && error.message ? error.message : String(error);
      self.sqlStatus.textContent = "The query failed: " + message + (/extension/i.test(message) ?
        " (This console loads no extension and fetches nothing: its DuckDB has the functions it was built with.)" : "");
      self.holder.setAttribute("data-sql-state", "error");
    });
  };

  /* -- the page ---------------------------------------------------------------------------------- */

  var viewers = [];

  function followHash() {
    var state = readHash();
    if (!state) {
      return;
    }
    for (var i = 0; i < viewers.length; i += 1) {
      if (viewers[i].ownHash === window.location.hash) {
        return; // written by the viewer itself
      }
      if (viewers[i].findSplit(state.split) !== -1) {
        viewers[i].go(state, true);
        return;
      }
    }
  }

  function setup() {
    var blocks = document.querySelectorAll("script.atlas-explorer-data");
    for (var i = 0; i < blocks.length; i += 1) {
      var section = blocks[i].parentNode;
      var holder = section.querySelector(".atlas-viewer");
      var config;
      try {
        config = { splits: JSON.parse(blocks[i].textContent).viewer };
      } catch (error) {
        continue;
      }
      if (!holder || !Array.isArray(config.splits) || !config.splits.length) {
        continue;
      }
      var viewer = new Viewer(holder, config);
      viewer.start();
      viewers.push(viewer);
    }
    if (window.location.protocol !== "file:") {
      followHash();
      window.addEventListener("hashchange", followHash);
    }
    document.documentElement.setAttribute("data-atlas-viewers", String(viewers.length));
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
})();
