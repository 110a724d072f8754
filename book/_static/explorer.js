/* Grounded Dialogue Atlas: static dialogue explorer (our own script: no libraries, no network).
 *
 * Each explorer written by utils.render.explorer.static_explorer holds its dialogues as JSON in a
 * <script type="application/json" class="atlas-explorer-data"> element. Every item has a label and
 * search text (dataset strings: only ever inserted with textContent) and "html", a rendering made
 * by the atlas's Python renderers, which escape all dataset text; that pre-rendered HTML is the
 * only markup this script inserts.
 */
(function () {
  "use strict";

  function setupExplorer(root) {
    if (root.getAttribute("data-atlas-ready") === "1") {
      return;
    }
    var dataNode = root.querySelector("script.atlas-explorer-data");
    var controls = root.querySelector(".atlas-explorer-controls");
    var view = root.querySelector(".atlas-explorer-view");
    if (!dataNode || !controls || !view) {
      return;
    }
    var items;
    try {
      items = JSON.parse(dataNode.textContent);
    } catch (error) {
      // Leave the server-rendered first dialogue in place rather than break the page.
      return;
    }
    if (!Array.isArray(items) || items.length === 0) {
      return;
    }
    var search = controls.querySelector(".atlas-explorer-search");
    var select = controls.querySelector(".atlas-explorer-index");
    var prev = controls.querySelector(".atlas-explorer-prev");
    var next = controls.querySelector(".atlas-explorer-next");
    var status = controls.querySelector(".atlas-explorer-status");
    var matches = items.map(function (_, i) { return i; });
    var position = 0; // index into matches

    function show() {
      var query = search.value.trim();
      if (matches.length === 0) {
        view.textContent = "";
        var empty = document.createElement("p");
        empty.className = "atlas-explorer-nomatch";
        empty.textContent = "No dialogue among the " + items.length + " shown here matches \u201c" + query + "\u201d.";
        view.appendChild(empty);
        status.textContent = "0 of " + items.length + " match";
        prev.disabled = true;
        next.disabled = true;
        return;
      }
      var item = items[matches[position]];
      view.innerHTML = item.html; // pre-rendered and escaped by the atlas's renderers
      root.setAttribute("data-current", String(matches[position]));
      select.value = String(matches[position]);
      status.textContent = query
        ? (position + 1) + " of " + matches.length + " matching (" + items.length + " in all)"
        : (position + 1) + " of " + items.length;
      prev.disabled = position === 0;
      next.disabled = position === matches.length - 1;
    }

    function fillIndex() {
      while (select.firstChild) {
        select.removeChild(select.firstChild);
      }
      matches.forEach(function (itemIndex) {
        var option = document.createElement("option");
        option.value = String(itemIndex);
        option.textContent = items[itemIndex].label;
        select.appendChild(option);
      });
      select.disabled = matches.length === 0;
    }

    function applySearch() {
      var terms = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      matches = [];
      items.forEach(function (item, i) {
        var haystack = item.search || "";
        if (terms.every(function (term) { return haystack.indexOf(term) !== -1; })) {
          matches.push(i);
        }
      });
      position = 0;
      fillIndex();
      show();
    }

    search.addEventListener("input", applySearch);
    select.addEventListener("change", function () {
      var found = matches.indexOf(Number(select.value));
      if (found !== -1) {
        position = found;
        show();
      }
    });
    prev.addEventListener("click", function () {
      if (position > 0) {
        position -= 1;
        show();
      }
    });
    next.addEventListener("click", function () {
      if (position < matches.length - 1) {
        position += 1;
        show();
      }
    });

    var fallback = root.querySelector(".atlas-explorer-static");
    if (fallback) {
      fallback.hidden = true;
    }
    controls.hidden = false;
    root.setAttribute("data-atlas-ready", "1");
    fillIndex();
    show();
  }

  function setupAll() {
    var roots = document.querySelectorAll("[data-atlas-explorer]");
    for (var i = 0; i < roots.length; i += 1) {
      setupExplorer(roots[i]);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setupAll);
  } else {
    setupAll();
  }
})();
