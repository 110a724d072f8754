// The grid's pager and the embed snippet (book/_static/viewer/pager.js, embed.js): pure parts.
import assert from "node:assert/strict";
import { test } from "node:test";

import { embedSnippet } from "../../book/_static/viewer/embed.js";
import { pageNumbers } from "../../book/_static/viewer/pager.js";

test("page numbers: the first, the last and two on each side of the current page", () => {
  assert.deepEqual(pageNumbers(0, 1), [0]);
  assert.deepEqual(pageNumbers(0, 5), [0, 1, 2, 3, 4]);
  assert.deepEqual(pageNumbers(0, 20), [0, 1, 2, null, 19]);
  assert.deepEqual(pageNumbers(10, 20), [0, null, 8, 9, 10, 11, 12, null, 19]);
  assert.deepEqual(pageNumbers(19, 20), [0, null, 17, 18, 19]);
  // a gap of one page is that page, not an ellipsis
  assert.deepEqual(pageNumbers(4, 20), [0, 1, 2, 3, 4, 5, 6, null, 19]);
});

test("the embed snippet escapes the address and the title it holds", () => {
  const snippet = embedSnippet('https://x.org/book/viewer/wow.html#viewer=wow/train&q="a"<b>', 'WoW & "train"');
  assert.ok(snippet.startsWith('<iframe src="https://x.org/book/viewer/wow.html#viewer=wow/train&amp;q=&quot;a&quot;&lt;b&gt;"'),
    snippet);
  assert.ok(snippet.includes('title="WoW &amp; &quot;train&quot;"'));
  assert.equal((snippet.match(/</g) || []).length, 2); // <iframe and </iframe>: nothing of the data opens a tag
});
