// The grid's label badges (book/_static/viewer/labels.js): the renderings' class names, from any text.
import assert from "node:assert/strict";
import { test } from "node:test";

import { badgeClass, cssToken } from "../../book/_static/viewer/labels.js";

test("a label's badge class is the one the atlas's renderers write (utils/book/render/_html.py's _css_token)", () => {
  assert.equal(badgeClass("BEGIN", "Partial Hallucination"), "atlas-badge atlas-badge-begin-partial-hallucination");
  assert.equal(badgeClass("BEGIN class (normalised)", "Hallucination"), "atlas-badge atlas-badge-begin-hallucination");
  assert.equal(cssToken("  \"><script>x"), "script-x");
  assert.equal(cssToken("***"), "x");
  assert.equal(cssToken("__proto__"), "proto");
});
