/* Grounded Dialogue Atlas: static dialogue explorer (our own script: no libraries, no network).
 *
 * Each explorer written by utils.render.explorer.static_explorer holds its settings as JSON in a
 * <script type="application/json" class="atlas-explorer-data"> element; the items themselves are a
 * gzip-compressed, base64-encoded JSON list inside it, unpacked here with the browser's own
 * DecompressionStream. Every item has a key (the permalink: dataset/split/index), a label, search
 * text, facet values and numeric columns (dataset strings: only ever inserted with textContent), and
 * "html", a rendering made by the atlas's Python renderers, which escape all dataset text; that
 * pre-rendered HTML is the only markup this script inserts.
 *
 * The reader can search (text, topic, labels and English glosses), filter by label (values of one
 * facet are alternatives, facets combine), page with the buttons, the index or the arrow keys, press
 * "/" to reach the search box of the explorer in view, open an item from the URL hash
 * (#wow/valid_seen/12; an id's "/" stays as it is: #wow/train/train/0) and copy that link, and see
 * column statistics of the matching items drawn as bars.
 */
(function () {
  "use strict";

  var explorers = [];
  /* A search reads at most this many characters (the box says so): a pasted book cannot make the tab
   * test thousands of words against every item. */
  var SEARCH_CAP = 200;
  var numberFormat = typeof Intl !== "undefined" ? new Intl.NumberFormat("en-US") : null;

  function fmt(value) {
    return numberFormat ? numberFormat.format(value) : String(value);
  }

  /* An object for keys that come from the data or a URL (facet values, permalink keys): it has no
   * prototype, so "__proto__", "constructor" or "toString" are keys like any other, not the members
   * every plain object inherits. */
  function keyed() {
    return Object.create(null);
  }

  /* The values of facet ``name`` of an item (its own, never an inherited member). */
  function facetValues(item, name) {
    var facets = item.facets;
    var values = facets && Object.prototype.hasOwnProperty.call(facets, name) ? facets[name] : null;
    return Array.isArray(values) ? values : [];
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

  function decodeItems(meta) {
    if (!meta || meta.encoding !== "gzip+base64" || typeof meta.items !== "string") {
      return Promise.reject(new Error("unknown explorer data"));
    }
    if (typeof DecompressionStream !== "function" || typeof Response !== "function") {
      return Promise.reject(new Error("this browser cannot unpack the explorer's data"));
    }
    var binary = atob(meta.items);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) {
      bytes[i] = binary.charCodeAt(i);
    }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (text) {
      return JSON.parse(text);
    });
  }

  function isTyping(target) {
    if (!target || !target.tagName) {
      return false;
    }
    var tag = target.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable) {
      return true;
    }
    return tag === "INPUT" && ["checkbox", "radio", "button", "submit", "reset"].indexOf(target.type) === -1;
  }

  /* -- one explorer ------------------------------------------------------------------------------ */

  function Explorer(root, meta, items) {
    this.root = root;
    this.meta = meta;
    this.items = items;
    this.noun = typeof meta.noun === "string" ? meta.noun : "items";
    // true when the page holds a sample: statistics then describe the sample, not the splits
    this.sampled = typeof meta.total === "number" && meta.total > items.length;
    this.facetNames = Array.isArray(meta.facets) ? meta.facets : [];
    this.columnNames = Array.isArray(meta.columns) ? meta.columns : [];
    this.selected = keyed(); // facet name -> {value: true}
    this.terms = [];
    this.matches = items.map(function (_, i) { return i; });
    this.position = 0;
    this.chips = []; // {facet, value, input, count, label}
    var q = function (selector) { return root.querySelector(selector); };
    this.controls = q(".atlas-explorer-controls");
    this.view = q(".atlas-explorer-view");
    this.search = q(".atlas-explorer-search");
    this.count = q(".atlas-explorer-count");
    this.filters = q(".atlas-explorer-filters");
    this.facetBox = q(".atlas-explorer-facets");
    this.select = q(".atlas-explorer-index");
    this.prev = q(".atlas-explorer-prev");
    this.next = q(".atlas-explorer-next");
    this.positionText = q(".atlas-explorer-position");
    this.permalink = q(".atlas-explorer-permalink");
    this.copy = q(".atlas-explorer-copy");
    this.linkField = q(".atlas-explorer-linkfield");
    this.copied = q(".atlas-explorer-copied");
    this.stats = q(".atlas-explorer-stats");
    this.charts = q(".atlas-explorer-charts");
    this.keyIndex = keyed();
    for (var i = 0; i < items.length; i += 1) {
      this.keyIndex[normalKey(items[i].key)] = i;
    }
  }

  Explorer.prototype.start = function () {
    var self = this;
    this.buildFacets();
    this.search.maxLength = SEARCH_CAP;
    this.searchNote = make("span", "atlas-explorer-searchcap", "(up to " + SEARCH_CAP + " characters)");
    this.search.parentNode.insertBefore(this.searchNote, this.search.nextSibling);
    this.search.addEventListener("input", function () { self.apply(); });
    this.search.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && self.search.value) {
        self.search.value = "";
        self.apply();
        event.preventDefault();
      }
    });
    this.select.addEventListener("change", function () {
      self.touched = true;
      var found = self.matches.indexOf(Number(self.select.value));
      if (found !== -1) {
        self.position = found;
        self.show();
      }
    });
    this.prev.addEventListener("click", function () { self.step(-1); });
    this.next.addEventListener("click", function () { self.step(1); });
    this.copy.addEventListener("click", function () { self.copyLink(); });
    this.stats.addEventListener("toggle", function () { self.drawStats(); });
    this.root.addEventListener("keydown", function (event) { self.onKey(event); });
    var fallback = this.root.querySelector(".atlas-explorer-static");
    if (fallback) {
      fallback.hidden = true;
    }
    if (this.facetNames.length === 0) {
      this.filters.hidden = true;
    } else if (window.innerWidth > 700) {
      this.filters.open = true; // folded on a phone, where the chips would push the dialogue away
    }
    this.controls.hidden = false;
    this.apply(typeof this.meta.start === "string" ? this.meta.start : undefined);
    this.root.setAttribute("data-atlas-ready", "1");
  };

  /* Words must all occur; "quoted text" must occur as written (case and runs of spaces aside). */
  function parseQuery(text) {
    var needles = [];
    var rest = String(text).slice(0, SEARCH_CAP).replace(/"([^"]*)"/g, function (_, phrase) {
      var clean = phrase.toLowerCase().replace(/\s+/g, " ").trim();
      if (clean) {
        needles.push(clean);
      }
      return " ";
    });
    rest.toLowerCase().replace(/"/g, " ").split(/\s+/).forEach(function (word) {
      if (word && needles.indexOf(word) === -1) {
        needles.push(word);
      }
    });
    return needles;
  }

  /* What an item is searched in: its search text and everything its rendering shows (glosses of
   * passages included), read from an inert <template>: nothing in it loads or runs. */
  function haystackOf(item) {
    if (item.haystack === undefined) {
      var template = document.createElement("template");
      template.innerHTML = item.html || ""; // pre-rendered and escaped by the atlas's renderers
      item.haystack = ((item.search || "") + " " + template.content.textContent).toLowerCase().replace(/\s+/g, " ");
    }
    return item.haystack;
  }

  Explorer.prototype.itemMatches = function (item, skipFacet) {
    var haystack = this.terms.length ? haystackOf(item) : "";
    for (var t = 0; t < this.terms.length; t += 1) {
      if (haystack.indexOf(this.terms[t]) === -1) {
        return false;
      }
    }
    for (var f = 0; f < this.facetNames.length; f += 1) {
      var name = this.facetNames[f];
      var wanted = this.selected[name];
      if (name === skipFacet || !wanted || Object.keys(wanted).length === 0) {
        continue;
      }
      var values = facetValues(item, name);
      var any = false;
      for (var v = 0; v < values.length; v += 1) {
        if (Object.prototype.hasOwnProperty.call(wanted, values[v])) {
          any = true;
          break;
        }
      }
      if (!any) {
        return false;
      }
    }
    return true;
  };

  Explorer.prototype.apply = function (keepKey) {
    var self = this;
    var cut = this.search.value.length > SEARCH_CAP; // a script can set more than the box's maxlength
    if (cut) {
      this.search.value = this.search.value.slice(0, SEARCH_CAP);
    }
    this.searchNote.textContent = cut ? "(cut to its first " + SEARCH_CAP + " characters, the most a search reads)"
      : "(up to " + SEARCH_CAP + " characters)";
    this.terms = parseQuery(this.search.value);
    var current = keepKey !== undefined ? keepKey : null;
    this.matches = [];
    this.items.forEach(function (item, i) {
      if (self.itemMatches(item, null)) {
        self.matches.push(i);
      }
    });
    var kept = current !== null ? this.matches.indexOf(this.keyIndex[normalKey(current)]) : -1;
    this.position = kept === -1 ? 0 : kept;
    this.updateChips();
    this.fillIndex();
    this.show();
    this.drawStats();
  };

  Explorer.prototype.filtered = function () {
    if (this.terms.length) {
      return true;
    }
    for (var name in this.selected) {
      if (Object.keys(this.selected[name]).length) {
        return true;
      }
    }
    return false;
  };

  Explorer.prototype.buildFacets = function () {
    var self = this;
    clear(this.facetBox);
    this.facetNames.forEach(function (name) {
      var totals = keyed();
      var seen = [];
      self.items.forEach(function (item) {
        facetValues(item, name).forEach(function (value) {
          if (!(value in totals)) {
            totals[value] = 0;
            seen.push(value);
          }
          totals[value] += 1;
        });
      });
      // Splits keep the chapter's order; labels come most frequent first.
      var values = name === "split" ? seen : seen.slice().sort(function (a, b) {
        return totals[b] - totals[a] || (a < b ? -1 : a > b ? 1 : 0);
      });
      if (values.length === 0) {
        return;
      }
      var group = make("fieldset", "atlas-explorer-facet");
      group.setAttribute("data-facet", name);
      group.appendChild(make("legend", null, name));
      var notes = self.meta.facet_notes || {};
      if (Object.prototype.hasOwnProperty.call(notes, name)) {
        group.appendChild(make("p", "atlas-explorer-facet-note", notes[name]));
      }
      values.forEach(function (value) {
        var label = make("label", "atlas-explorer-chip");
        var input = make("input");
        input.type = "checkbox";
        input.value = value;
        var count = make("span", "atlas-explorer-chip-count", "");
        label.appendChild(input);
        label.appendChild(make("span", "atlas-explorer-chip-value", value));
        label.appendChild(count);
        label.setAttribute("data-value", value);
        input.addEventListener("change", function () {
          var wanted = self.selected[name] || (self.selected[name] = keyed());
          if (input.checked) {
            wanted[value] = true;
          } else {
            delete wanted[value];
          }
          label.classList.toggle("atlas-explorer-chip-on", input.checked);
          self.apply();
        });
        group.appendChild(label);
        self.chips.push({ facet: name, value: value, input: input, count: count, label: label });
      });
      self.facetBox.appendChild(group);
    });
    var reset = make("button", "atlas-explorer-reset", "Clear filters");
    reset.type = "button";
    reset.addEventListener("click", function () { self.reset(); self.apply(); });
    this.facetBox.appendChild(reset);
  };

  /* Each chip counts the items that would match if it were ticked too: the search and the other
   * facets' choices apply, its own facet's do not (values of one facet are alternatives). */
  Explorer.prototype.updateChips = function () {
    var self = this;
    var counts = keyed();
    this.facetNames.forEach(function (name) {
      var perValue = (counts[name] = keyed());
      self.items.forEach(function (item) {
        if (self.itemMatches(item, name)) {
          facetValues(item, name).forEach(function (value) {
            perValue[value] = (perValue[value] || 0) + 1;
          });
        }
      });
    });
    this.chips.forEach(function (chip) {
      var perValue = counts[chip.facet];
      var n = (perValue && perValue[chip.value]) || 0;
      chip.count.textContent = fmt(n);
      chip.label.setAttribute("data-count", String(n));
      chip.label.classList.toggle("atlas-explorer-chip-empty", n === 0 && !chip.input.checked);
    });
  };

  Explorer.prototype.reset = function () {
    this.search.value = "";
    this.selected = keyed();
    this.chips.forEach(function (chip) {
      chip.input.checked = false;
      chip.label.classList.remove("atlas-explorer-chip-on");
    });
  };

  Explorer.prototype.fillIndex = function () {
    var self = this;
    clear(this.select);
    var fragment = document.createDocumentFragment();
    this.matches.forEach(function (itemIndex) {
      var option = make("option", null, self.items[itemIndex].label);
      option.value = String(itemIndex);
      fragment.appendChild(option);
    });
    this.select.appendChild(fragment);
    this.select.disabled = this.matches.length === 0;
  };

  Explorer.prototype.show = function () {
    var total = this.items.length;
    var n = this.matches.length;
    this.root.setAttribute("data-matches", String(n));
    this.count.textContent = this.filtered()
      ? fmt(n) + " of " + fmt(total) + " " + this.noun + " match"
      : fmt(total) + " " + this.noun + " embedded";
    if (n === 0) {
      clear(this.view);
      var query = this.search.value.trim();
      var empty = make("p", "atlas-explorer-nomatch",
        "Nothing among the " + fmt(total) + " " + this.noun + " embedded here matches" +
        (query ? " \u201c" + query + "\u201d" : "") + (this.filteredByFacet() ? " with these filters" : "") + ".");
      this.view.appendChild(empty);
      this.root.removeAttribute("data-current");
      this.positionText.textContent = "";
      this.permalink.hidden = true;
      this.copy.disabled = true;
      this.prev.disabled = true;
      this.next.disabled = true;
      return;
    }
    var item = this.items[this.matches[this.position]];
    this.view.innerHTML = item.html; // pre-rendered and escaped by the atlas's renderers
    this.root.setAttribute("data-current", String(this.matches[this.position]));
    this.root.setAttribute("data-key", item.key);
    this.select.value = String(this.matches[this.position]);
    this.positionText.textContent = "Item " + fmt(this.position + 1) + " of " + fmt(n) + " \u00b7 " + item.key;
    this.permalink.hidden = false;
    this.permalink.setAttribute("href", "#" + item.key);
    if (this.touched && window.location.hash !== "#" + item.key) {
      // the address bar names the item on screen once the reader has moved (not on arrival)
      this.ownHash = "#" + item.key;
      history.replaceState(null, "", this.ownHash);
    }
    this.copy.disabled = false;
    this.copied.textContent = "";
    this.linkField.hidden = true;
    this.prev.disabled = this.position === 0;
    this.next.disabled = this.position === n - 1;
  };

  Explorer.prototype.filteredByFacet = function () {
    for (var name in this.selected) {
      if (Object.keys(this.selected[name]).length) {
        return true;
      }
    }
    return false;
  };

  Explorer.prototype.step = function (delta) {
    this.touched = true;
    var target = this.position + delta;
    if (target >= 0 && target < this.matches.length) {
      this.position = target;
      this.show();
    }
  };

  Explorer.prototype.onKey = function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) {
      return;
    }
    var moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (Object.prototype.hasOwnProperty.call(moves, event.key)) {
      this.step(moves[event.key]);
      event.preventDefault();
    } else if (event.key === "Home" || event.key === "End") {
      this.touched = true;
      this.position = event.key === "Home" ? 0 : Math.max(this.matches.length - 1, 0);
      this.show();
      event.preventDefault();
    }
  };

  Explorer.prototype.linkTo = function (key) {
    return window.location.href.split("#")[0] + "#" + key;
  };

  Explorer.prototype.copyLink = function () {
    var self = this;
    var key = this.root.getAttribute("data-key");
    if (!key || this.matches.length === 0) {
      return;
    }
    var url = this.linkTo(key);
    var fallback = function () {
      // No clipboard (an http page, or permission refused): show the link ready to copy by hand.
      self.linkField.value = url;
      self.linkField.hidden = false;
      self.linkField.focus();
      self.linkField.select();
      self.copied.textContent = "Press Ctrl+C (\u2318C) to copy the selected link.";
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(function () {
        self.copied.textContent = "Link copied.";
      }, fallback);
    } else {
      fallback();
    }
  };

  /* Open the item named by a permalink key; false when this explorer does not hold it. */
  Explorer.prototype.open = function (key) {
    var itemIndex = this.keyIndex[normalKey(key)];
    if (itemIndex === undefined) {
      return false;
    }
    if (this.matches.indexOf(itemIndex) === -1) {
      this.reset();
      this.apply(key);
    } else {
      this.position = this.matches.indexOf(itemIndex);
      this.show();
    }
    this.root.scrollIntoView({ block: "start" });
    this.view.focus({ preventScroll: true });
    return true;
  };

  Explorer.prototype.holdsDataset = function (dataset) {
    for (var key in this.keyIndex) {
      if (key.split("/")[0] === dataset) {
        return true;
      }
    }
    return false;
  };

  Explorer.prototype.showMissing = function (key) {
    this.copied.textContent = "";
    var note = make("p", "atlas-explorer-nomatch",
      "The link names " + normalKey(key) + ", which is not among the " + fmt(this.items.length) + " " + this.noun +
      " embedded in this page; showing the first one instead.");
    this.view.insertBefore(note, this.view.firstChild);
    // Served, the data viewer below holds every row: the same record, by its id, is one click away.
    var parts = keyParts(key);
    if (window.location.protocol !== "file:" && this.root.querySelector(".atlas-viewer") && parts[2].charAt(0) !== "@") {
      var id = decodeURIComponent(parts[2]);
      var link = make("a", "atlas-explorer-to-viewer", "Open " + parts[0] + " " + parts[1] + " " + id + " in the data viewer");
      link.href = "#viewer=" + hashValue(parts[0] + "/" + parts[1]) + "&row=" + hashValue(id);
      note.appendChild(document.createTextNode(" "));
      note.appendChild(link);
    }
    this.root.scrollIntoView({ block: "start" });
  };

  /* -- column statistics, drawn as bars ----------------------------------------------------------- */

  Explorer.prototype.drawStats = function () {
    if (!this.stats.open) {
      return; // drawn when opened, and redrawn with every change while open
    }
    var self = this;
    clear(this.charts);
    var matching = this.matches.map(function (i) { return self.items[i]; });
    var intro = make("p", "atlas-explorer-stats-intro",
      "Of the " + fmt(matching.length) + " matching " + this.noun + " (of " + fmt(this.items.length) +
      " embedded here" + (this.sampled ? ", a sample of " + fmt(this.meta.total) + ")." : ", all there are in the splits shown)."));
    this.charts.appendChild(intro);
    this.columnNames.forEach(function (name) {
      var values = [];
      matching.forEach(function (item) {
        var value = (item.columns || {})[name];
        if (typeof value === "number" && isFinite(value)) {
          values.push(value);
        }
      });
      if (values.length) {
        self.charts.appendChild(histogram(name, values));
      }
    });
    this.facetNames.forEach(function (name) {
      var counts = keyed();
      matching.forEach(function (item) {
        facetValues(item, name).forEach(function (value) {
          counts[value] = (counts[value] || 0) + 1;
        });
      });
      if (Object.keys(counts).length) {
        self.charts.appendChild(frequencies(name, counts, matching.length));
      }
    });
  };

  function histogram(name, values) {
    values = values.slice().sort(function (a, b) { return a - b; });
    var min = values[0];
    var max = values[values.length - 1];
    var median = values[Math.floor((values.length - 1) / 2)];
    var integers = values.every(function (v) { return Math.round(v) === v; });
    var bins = [];
    if (integers && max - min < 16) {
      for (var v = min; v <= max; v += 1) {
        bins.push({ from: v, to: v, count: 0 });
      }
    } else {
      var n = Math.min(12, Math.max(1, Math.ceil(Math.sqrt(values.length))));
      var width = (max - min) / n || 1;
      for (var b = 0; b < n; b += 1) {
        bins.push({ from: min + b * width, to: min + (b + 1) * width, count: 0 });
      }
    }
    values.forEach(function (value) {
      var at = bins.length === 1 ? 0 : integers && max - min < 16 ? value - min
        : Math.min(bins.length - 1, Math.floor((value - min) / ((max - min) / bins.length)));
      bins[at].count += 1;
    });
    var top = Math.max.apply(null, bins.map(function (bin) { return bin.count; }));
    var round = function (x) { return integers ? fmt(Math.round(x)) : fmt(Math.round(x * 10) / 10); };
    var chart = make("div", "atlas-chart atlas-chart-histogram");
    chart.setAttribute("data-column", name);
    chart.appendChild(make("div", "atlas-chart-title", name));
    chart.appendChild(make("div", "atlas-chart-summary",
      "min " + round(min) + " \u00b7 median " + round(median) + " \u00b7 max " + round(max) +
      " \u00b7 " + fmt(values.length) + " values"));
    var bars = make("div", "atlas-chart-bars");
    bars.setAttribute("role", "img");
    bars.setAttribute("aria-label", "Histogram of " + name + ": " + bins.map(function (bin) {
      return (bin.from === bin.to ? round(bin.from) : round(bin.from) + "\u2013" + round(bin.to)) + ": " + bin.count;
    }).join(", "));
    bins.forEach(function (bin) {
      var bar = make("div", "atlas-chart-bar");
      bar.style.height = (top ? (100 * bin.count) / top : 0) + "%";
      bar.title = (bin.from === bin.to ? round(bin.from) : round(bin.from) + "\u2013" + round(bin.to)) +
        ": " + fmt(bin.count);
      bars.appendChild(bar);
    });
    chart.appendChild(bars);
    var axis = make("div", "atlas-chart-axis");
    axis.appendChild(make("span", null, round(min)));
    axis.appendChild(make("span", null, round(max)));
    chart.appendChild(axis);
    return chart;
  }

  function frequencies(name, counts, total) {
    var values = Object.keys(counts).sort(function (a, b) {
      return counts[b] - counts[a] || (a < b ? -1 : a > b ? 1 : 0);
    });
    var shown = values; // every value, as the column statistics promise
    var chart = make("div", "atlas-chart atlas-chart-frequencies");
    chart.setAttribute("data-facet", name);
    chart.appendChild(make("div", "atlas-chart-title", name));
    var list = make("ul", "atlas-chart-rows");
    shown.forEach(function (value) {
      var row = make("li", "atlas-chart-row");
      row.setAttribute("data-value", value);
      row.setAttribute("data-count", String(counts[value]));
      row.appendChild(make("span", "atlas-chart-label", value));
      var track = make("span", "atlas-chart-track");
      track.setAttribute("aria-hidden", "true");
      var bar = make("span", "atlas-chart-fill");
      // the bar is the share of the matching items, as the number beside it says
      bar.style.width = (100 * counts[value]) / total + "%";
      track.appendChild(bar);
      row.appendChild(track);
      row.appendChild(make("span", "atlas-chart-number",
        fmt(counts[value]) + " (" + share(counts[value], total) + ")"));
      list.appendChild(row);
    });
    chart.appendChild(list);
    return chart;
  }

  /* A share as a whole percentage; one that would round to 0 says "<1%" (it is not nothing). */
  function share(count, total) {
    var percent = (100 * count) / total;
    return percent > 0 && percent < 0.5 ? "<1%" : Math.round(percent) + "%";
  }

  /* -- the page: set up every explorer, then follow the URL hash -------------------------------- */

  /* A value of the data viewer's hash (viewer.js reads it with URLSearchParams): percent-encoded
   * but its "/", which a fragment may hold as it is (#viewer=wow/train&row=train/0). */
  function hashValue(text) {
    return encodeURIComponent(text).replace(/%2F/g, "/");
  }

  /* A permalink key's three parts: dataset, split and id (everything after the split: an id keeps
   * its "/" readable, wow/train/train/0), or null when the key has fewer parts. */
  function keyParts(key) {
    var parts = String(key).split("/");
    if (parts.length < 3) {
      return null;
    }
    return [parts[0], parts[1], parts.slice(2).join("/")];
  }

  /* A permalink key with each of its three parts decoded, as the items are indexed: the id part of
   * a key is percent-encoded (an id may hold "%", "#" or spaces), and browsers encode a hash their own
   * way; a link written with the id's slash escaped (train%2F0) names the same item as train/0. */
  function normalKey(key) {
    var parts = keyParts(key);
    if (parts === null) {
      return null;
    }
    try {
      return parts.map(decodeURIComponent).join("/");
    } catch (error) {
      return null;
    }
  }

  function permalinkKey() {
    var raw = window.location.hash.slice(1);
    // dataset/split/id (or @index), each part percent-encoded but the id's "/"; any other hash is a
    // section anchor.
    if (!/^[a-z0-9_]+\/[^\/\s]+\/[^\s]+$/.test(raw)) {
      return null;
    }
    return normalKey(raw) === null ? null : raw;
  }

  function followHash() {
    for (var k = 0; k < explorers.length; k += 1) {
      if (explorers[k].ownHash && explorers[k].ownHash === window.location.hash) {
        return; // written by the explorer itself while paging
      }
    }
    var key = permalinkKey();
    if (key === null) {
      return;
    }
    for (var i = 0; i < explorers.length; i += 1) {
      if (explorers[i].open(key)) {
        return;
      }
    }
    var dataset = key.split("/")[0];
    for (var j = 0; j < explorers.length; j += 1) {
      if (explorers[j].holdsDataset(dataset)) {
        explorers[j].showMissing(key);
        return;
      }
    }
  }

  function explorerInView() {
    var best = null;
    var bestArea = 0;
    explorers.forEach(function (explorer) {
      var box = explorer.root.getBoundingClientRect();
      var visible = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
      if (visible > bestArea) {
        best = explorer;
        bestArea = visible;
      }
    });
    return best;
  }

  // "/" reaches the search box of the explorer in view; elsewhere the book's own search keeps it.
  window.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) {
      return;
    }
    var explorer = explorerInView();
    if (explorer) {
      event.preventDefault();
      event.stopImmediatePropagation();
      explorer.search.focus();
      explorer.search.select();
    }
  }, true);

  function setupExplorer(root) {
    if (root.getAttribute("data-atlas-ready") || root.getAttribute("data-atlas-loading")) {
      return Promise.resolve();
    }
    var dataNode = root.querySelector("script.atlas-explorer-data");
    if (!dataNode || !root.querySelector(".atlas-explorer-controls") || !root.querySelector(".atlas-explorer-view")) {
      return Promise.resolve();
    }
    root.setAttribute("data-atlas-loading", "1");
    var meta;
    try {
      meta = JSON.parse(dataNode.textContent);
    } catch (error) {
      return Promise.resolve(); // leave the server-rendered first item in place
    }
    return decodeItems(meta).then(function (items) {
      if (!Array.isArray(items) || items.length === 0) {
        return;
      }
      var explorer = new Explorer(root, meta, items);
      explorer.start();
      explorers.push(explorer);
    }, function (error) {
      var fallback = root.querySelector(".atlas-explorer-static");
      if (fallback) {
        fallback.textContent = "The explorer could not start (" + error.message +
          "); the first embedded item is shown.";
      }
    });
  }

  function setupAll() {
    var roots = document.querySelectorAll("[data-atlas-explorer]");
    var pending = [];
    for (var i = 0; i < roots.length; i += 1) {
      pending.push(setupExplorer(roots[i]));
    }
    Promise.all(pending).then(function () {
      followHash();
      window.addEventListener("hashchange", followHash);
      document.documentElement.setAttribute("data-atlas-explorers", String(explorers.length));
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setupAll);
  } else {
    setupAll();
  }
})();
