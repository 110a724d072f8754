/* Grounded Dialogue Atlas: the data viewer's loader (our own script; DuckDB-WASM, served by the book,
 * for SQL).
 *
 * The viewer itself is the ES modules in _static/viewer/ (data access, filters, statistics, SQL, URL
 * state; the grid, the facets, the statistics panel, the open row and the SQL console, each a function
 * returning its element; app.js keeping the view's state and wiring them), over the files
 * utils/book/viewer_files.py writes. This classic
 * script finds the site's root from its own address and imports them. Opened from disk (file://),
 * browsers block the modules, the fetches and the worker the viewer needs: a note then says how to
 * serve the page (the chapter's pinned dialogues, rendered on the server, still show).
 */
(function () {
  "use strict";

  var script = document.currentScript;
  // the site's root, from this script's own address (…/_static/viewer.js)
  var siteRoot = script && script.src ? script.src.replace(/_static\/viewer\.js.*$/, "") : "";

  function note(holder) {
    holder.hidden = false;
    var title = document.createElement("div");
    title.className = "atlas-viewer-title";
    title.textContent = "Every row of every split: the data viewer";
    var text = document.createElement("p");
    text.className = "atlas-viewer-note atlas-viewer-file";
    text.textContent = "Opened from disk, this page shows no data viewer. The viewer (every row of every split, " +
      "filters, column statistics and SQL) needs the page served, because browsers block its modules, fetches and " +
      "workers on file:// pages: run `python -m http.server` in _build/html and open " +
      "http://localhost:8000/ in the browser.";
    holder.appendChild(title);
    holder.appendChild(text);
    holder.setAttribute("data-viewer-state", "file");
  }

  function start() {
    if (window.location.protocol === "file:") {
      var holders = document.querySelectorAll(".atlas-viewer");
      for (var i = 0; i < holders.length; i += 1) { note(holders[i]); }
      document.documentElement.setAttribute("data-atlas-viewers", String(holders.length));
      return;
    }
    import(siteRoot + "_static/viewer/main.js").then(function (main) {
      main.setup(siteRoot);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
