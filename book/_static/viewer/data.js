/* Data access: the files utils/book/viewer_files.py writes (one format, one writer), fetched from the site.
 *
 * A level is held column by column as the files store it: per row a code (a typed array of one to
 * four bytes a row) into the column's sorted distinct values, so that a text shown at many rows is
 * held once. A paged column (millions of distinct values) keeps only its codes; its values are
 * fetched a chunk at a time for the rows on screen. A lazy column (paged, or the hidden number of a
 * row's dialogue) is written in small shards of its own, read for the rows on screen, or for every
 * row when sorted by. */

import { keyed, own } from "./text.js";

/** Version of the file layout: utils/book/viewer_files.py's FORMAT, which writes it into each manifest; any other is refused.
 * tests/test_viewer_js.py fails when the two differ, and decodes the files Python writes with this module. */
export const FORMAT = 3;
const PARALLEL_FETCHES = 4;
/* Chunks of a paged column's dictionary kept at most (those of the rows on screen are kept). */
const PAGES_KEPT = 8;
/* Shards of a lazy column's codes kept at most. */
const SHARDS_KEPT = 32;

/** @typedef {Uint8Array | Uint16Array | Uint32Array} Codes */
/** @typedef {Uint8ArrayConstructor | Uint16ArrayConstructor | Uint32ArrayConstructor} CodesType */
/** @typedef {string | number | string[]} Value */

/**
 * @typedef {object} ShardInfo
 * @property {string} file
 * @property {number} rows
 * @property {number} [bytes]
 */

/**
 * @typedef {object} ColumnInfo a column as the manifest lists it
 * @property {string} name
 * @property {string} kind number, label, labels, text, id or hidden
 * @property {string} stored the kind its values are stored as
 * @property {number} size distinct values (a code equal to it: missing)
 * @property {1 | 2 | 4} bytes
 * @property {string[]} dictionary
 * @property {number} chunk
 * @property {boolean} [paged]
 * @property {Record<string, number>} [split_lengths]
 * @property {ShardInfo[]} [shards]
 */

/**
 * @typedef {object} LevelInfo
 * @property {number} rows
 * @property {string} id
 * @property {ColumnInfo[]} columns
 * @property {ShardInfo[]} shards
 */

/**
 * @typedef {object} Manifest
 * @property {number} format
 * @property {string} dataset
 * @property {string} title
 * @property {string} split
 * @property {string} label
 * @property {string} [kind]
 * @property {string} [note]
 * @property {Record<string, string[]>} [identifying] per level, the columns that name a row, shown first
 * @property {Array<{title: string, sql: string}>} [queries]
 * @property {Record<string, string>} [column_notes] what a column's statistics count, where it needs saying
 * @property {number} dialogues
 * @property {Record<string, LevelInfo>} levels
 * @property {Renderings} html
 */

/**
 * @typedef {object} Renderings the renderings of a split's dialogues: per dialogue the codes of its
 * fragments (in shards of per_shard dialogues), each distinct fragment once (in chunks of chunk)
 * @property {number} per_shard
 * @property {string[]} shards
 * @property {string[]} fragments
 * @property {number} chunk
 */

/**
 * @typedef {object} RenderingCache the renderings' files fetched (each once; forgotten when its fetch failed)
 * @property {Record<string, Promise<number[][]>>} html shard -> its dialogues' fragment codes
 * @property {Record<string, Promise<string[]>>} fragments chunk -> its fragments
 */

/**
 * @typedef {object} Column a column as the viewer holds it
 * @property {string} name
 * @property {string} kind
 * @property {string} stored
 * @property {number} size
 * @property {number} chunk
 * @property {string[]} files
 * @property {boolean} paged
 * @property {Record<string, number> | null} splitLengths
 * @property {boolean} lazy
 * @property {CodesType} Type
 * @property {Codes | null} codes
 * @property {Value[] | null} dict
 * @property {Record<string, {values: Value[] | null, ready?: Promise<void>}>} pages
 * @property {string[] | null} lower
 * @property {Record<string, {values: Codes | null, ready?: Promise<void>}>} shardCodes
 * @property {string} base
 * @property {number} rows
 * @property {ShardInfo[] | null} shards
 * @property {number[] | null} starts
 * @property {Promise<void> | null} [allCodes]
 */

/**
 * @typedef {object} LevelData a loaded level
 * @property {Manifest} manifest
 * @property {string} level
 * @property {LevelInfo} info
 * @property {Record<string, Column>} columns
 * @property {number} rows
 */

/** @type {Record<number, CodesType>} */
const CODE_ARRAYS = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array };

/**
 * The bytes of a gzip-compressed file (or of a plain one, if a server already unpacked it). Not
 * kept in the HTTP cache: the viewer holds what it needs of a level, and a private window's cache
 * (memory) would hold the files a second time.
 * @param {string} url
 * @returns {Promise<ArrayBuffer>}
 */
export function fetchBytes(url) {
  return fetch(url, { cache: "no-store" }).then((response) => {
    if (!response.ok) {
      throw new Error("HTTP " + response.status + " for " + url);
    }
    return response.arrayBuffer();
  }).then((buffer) => {
    const bytes = new Uint8Array(buffer, 0, Math.min(2, buffer.byteLength));
    if (bytes.length > 1 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
      // a stream over the bytes themselves: a Blob would copy them to the browser's blob store first
      const stream = /** @type {ReadableStream<BufferSource>} */ (new Response(buffer).body)
        .pipeThrough(new DecompressionStream("gzip"));
      return new Response(stream).arrayBuffer();
    }
    return buffer;
  });
}

/**
 * A gzip-compressed JSON file.
 * @param {string} url
 * @returns {Promise<any>}
 */
export function fetchJson(url) {
  return fetchBytes(url).then((buffer) => JSON.parse(new TextDecoder().decode(buffer)));
}

/**
 * A split's manifest, refused unless it is of this FORMAT.
 * @param {string} url
 * @returns {Promise<Manifest>}
 */
export function fetchManifest(url) {
  return fetch(url).then((response) => {
    if (!response.ok) {
      throw new Error("HTTP " + response.status);
    }
    return response.json();
  }).then((manifest) => {
    if (!manifest || manifest.format !== FORMAT) {
      throw new Error("unknown data format " + (manifest && manifest.format));
    }
    return manifest;
  });
}

/**
 * Run ``task(item)`` (a promise) for every item, at most ``limit`` at a time.
 * @template T
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<unknown>} task
 * @returns {Promise<unknown>}
 */
export function eachLimited(items, limit, task) {
  let next = 0;
  /** @returns {Promise<void>} */
  function worker() {
    if (next >= items.length) {
      return Promise.resolve();
    }
    const item = items[next];
    next += 1;
    return task(item).then(worker);
  }
  const workers = [];
  for (let k = 0; k < Math.min(limit, items.length); k += 1) { workers.push(worker()); }
  return Promise.all(workers);
}

/**
 * Where a shard's block of a column starts in the shard's bytes (each block padded to 4 bytes).
 * @param {LevelInfo} info
 * @param {number} k the shard
 * @param {string} name the column
 * @returns {number}
 */
export function blockOffset(info, k, name) {
  let offset = 0;
  for (let c = 0; c < info.columns.length && info.columns[c].name !== name; c += 1) {
    if (!info.columns[c].shards) {
      offset += Math.ceil((info.shards[k].rows * info.columns[c].bytes) / 4) * 4;
    }
  }
  return offset;
}

/**
 * Where each shard starts, in rows.
 * @param {ShardInfo[]} shards
 * @returns {number[]}
 */
export function shardStarts(shards) {
  /** @type {number[]} */
  const starts = [];
  let at = 0;
  shards.forEach((shard) => { starts.push(at); at += shard.rows; });
  return starts;
}

/**
 * A column as held, before its codes and values are read.
 * @param {ColumnInfo} c
 * @param {string} base the split's directory
 * @param {number} rows
 * @returns {Column}
 */
export function newColumn(c, base, rows) {
  const Type = CODE_ARRAYS[c.bytes];
  return {
    name: c.name, kind: c.kind, stored: c.stored, size: c.size, chunk: c.chunk, files: c.dictionary,
    paged: !!c.paged, splitLengths: c.split_lengths || null, lazy: !!c.shards, Type,
    codes: c.shards ? null : new Type(rows), dict: null, pages: {}, lower: null,
    shardCodes: {}, base, rows, shards: c.shards || null, starts: c.shards ? shardStarts(c.shards) : null,
  };
}

/**
 * A level's rows: its shards are fetched a few at a time and copied into the columns, so that no
 * more than a few shards' bytes are alive at once. The dictionaries and the first shard come first
 * (the other shards one at a time meanwhile): ``onFirst`` is called once the first shard's rows can
 * be shown (at full size the other shards are most of the level's bytes, and the reader opening it
 * sees its first page).
 * @param {string} base
 * @param {LevelInfo} info
 * @param {(columns: Record<string, Column>, rows: number) => void} [onFirst] the columns, whose
 * first ``rows`` rows are in
 * @returns {Promise<Record<string, Column>>}
 */
export function loadLevel(base, info, onFirst) {
  /** @type {Record<string, Column>} */
  const columns = keyed();
  const starts = shardStarts(info.shards);
  const list = info.columns.map((c) => (columns[c.name] = newColumn(c, base, info.rows)));
  const held = list.filter((column) => !column.lazy);
  /** @param {number} k */
  const copy = (k) => fetchBytes(base + info.shards[k].file).then((buffer) => {
    held.forEach((column) => {
      /** @type {Codes} */ (column.codes).set(new column.Type(buffer, blockOffset(info, k, column.name), info.shards[k].rows), starts[k]);
    });
  });
  const dictionaries = eachLimited(list.filter((c) => !c.paged), PARALLEL_FETCHES, (column) =>
    Promise.all(column.files.map((file) => fetchJson(base + file))).then((parts) => {
      column.dict = [].concat(...parts);
    }));
  const first = Promise.all([copy(0), dictionaries]);
  if (onFirst && info.shards.length > 1) {
    first.then(() => { onFirst(columns, info.shards[0].rows); }, () => {}); // a failure is the level's
  }
  // the other shards: one at a time while the first page's files come, then PARALLEL_FETCHES at a time
  let next = 1;
  /** @returns {Promise<unknown>} */
  const worker = () => (next < info.shards.length ? copy(next++).then(worker) : Promise.resolve());
  const more = first.then(() => Promise.all(Array.from({ length: PARALLEL_FETCHES - 1 }, worker)));
  return Promise.all([worker(), more]).then(() => columns);
}

/**
 * A loaded level, from a manifest.
 * @param {string} base the split's directory
 * @param {Manifest} manifest
 * @param {string} level
 * @param {(first: LevelData, rows: number) => void} [onFirst] called once the level's first ``rows``
 * rows are in (when it has more than one shard), before the others
 * @returns {Promise<LevelData>}
 */
export function loadLevelData(base, manifest, level, onFirst) {
  const info = own(manifest.levels, level);
  if (!info) {
    return Promise.reject(new Error("no " + level + " level"));
  }
  /** @param {Record<string, Column>} columns @returns {LevelData} */
  const data = (columns) => ({ manifest, level, info, columns, rows: info.rows });
  return loadLevel(base, info, onFirst && ((columns, rows) => { onFirst(data(columns), rows); })).then(data);
}

/**
 * The shard holding ``row``.
 * @param {number[]} starts
 * @param {number} row
 * @returns {number}
 */
export function shardOf(starts, row) {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= row) { low = middle; } else { high = middle - 1; }
  }
  return low;
}

/**
 * The code of a cell, or -1 while a lazy column's shard is not fetched.
 * @param {Column} column
 * @param {number} row
 * @returns {number}
 */
export function codeAt(column, row) {
  if (column.codes) {
    return column.codes[row];
  }
  const starts = /** @type {number[]} */ (column.starts);
  const k = shardOf(starts, row);
  const codes = column.shardCodes[k];
  return codes && codes.values ? codes.values[row - starts[k]] : -1;
}

/**
 * A cell's value: null when missing, undefined while a lazy column's codes or a paged column's
 * values are not fetched.
 * @param {Column} column
 * @param {number} row
 * @returns {Value | null | undefined}
 */
export function cell(column, row) {
  const code = codeAt(column, row);
  if (code === -1) {
    return undefined;
  }
  if (code === column.size) {
    return null;
  }
  if (column.dict) {
    return column.dict[code];
  }
  const page = column.pages[Math.floor(code / column.chunk)];
  return page && page.values ? page.values[code % column.chunk] : undefined;
}

/**
 * Fetch a lazy column's codes for ``rows`` (the shards holding them; the last SHARDS_KEPT kept).
 * Resolves true once they are there, when some were not at first.
 * @param {Column} column
 * @param {number[]} rows
 * @returns {Promise<boolean>}
 */
export function ensureCodes(column, rows) {
  if (column.codes) {
    return Promise.resolve(false);
  }
  const starts = /** @type {number[]} */ (column.starts);
  const shards = /** @type {ShardInfo[]} */ (column.shards);
  /** @type {Record<string, boolean>} */
  const wanted = {};
  rows.forEach((row) => { wanted[shardOf(starts, row)] = true; });
  const kept = Object.keys(column.shardCodes).filter((k) => !wanted[k]);
  kept.slice(0, Math.max(0, kept.length + Object.keys(wanted).length - SHARDS_KEPT)).forEach((k) => {
    delete column.shardCodes[k];
  });
  let waited = false;
  return Promise.all(Object.keys(wanted).map((key) => {
    const k = Number(key);
    let entry = column.shardCodes[k];
    if (!entry) {
      /** @type {{values: Codes | null, ready?: Promise<void>}} */
      const made = { values: null };
      entry = column.shardCodes[k] = made;
      made.ready = fetchBytes(column.base + shards[k].file).then((buffer) => {
        made.values = new column.Type(buffer, 0, shards[k].rows);
      }, (error) => { delete column.shardCodes[k]; throw error; });
    }
    waited = waited || entry.values === null;
    return entry.ready;
  })).then(() => waited);
}

/**
 * Every code of a lazy column (to sort by it): fetched once, then held like the others'.
 * @param {Column} column
 * @returns {Promise<void>}
 */
export function loadAllCodes(column) {
  if (!column.allCodes) {
    const codes = new column.Type(column.rows);
    const shards = /** @type {ShardInfo[]} */ (column.shards);
    const starts = /** @type {number[]} */ (column.starts);
    column.allCodes = eachLimited(shards.map((shard, k) => k), PARALLEL_FETCHES, (k) =>
      fetchBytes(column.base + shards[k].file).then((buffer) => {
        codes.set(new column.Type(buffer, 0, shards[k].rows), starts[k]);
      })).then(() => {
      column.codes = codes;
      column.shardCodes = {};
    }, (error) => {
      column.allCodes = null;
      throw error;
    });
  }
  return column.allCodes;
}

/**
 * A chunk of a paged column's values: fetched once (forgotten again when its fetch failed).
 * @param {Column} column
 * @param {number} k
 * @returns {{values: Value[] | null, ready?: Promise<void>}}
 */
function pageOf(column, k) {
  let page = column.pages[k];
  if (!page) {
    /** @type {{values: Value[] | null, ready?: Promise<void>}} */
    const made = { values: null };
    page = column.pages[k] = made;
    made.ready = fetchJson(column.base + column.files[k]).then((values) => { made.values = values; },
      (error) => { delete column.pages[k]; throw error; });
  }
  return page;
}

/**
 * The chunks of a paged column's values that ``rows`` show (whose codes are there).
 * @param {Column} column
 * @param {number[]} rows
 * @returns {Record<string, boolean>}
 */
function chunksShown(column, rows) {
  /** @type {Record<string, boolean>} */
  const wanted = {};
  rows.forEach((row) => {
    const code = codeAt(column, row);
    if (code !== column.size && code !== -1) { wanted[Math.floor(code / column.chunk)] = true; }
  });
  return wanted;
}

/**
 * Fetch the chunks of a paged column that ``rows`` show; forget those no row on screen needs beyond
 * the last PAGES_KEPT. Resolves true once every chunk is there, when one was not at first.
 * @param {Column} column
 * @param {number[]} rows
 * @returns {Promise<boolean>}
 */
export function ensurePages(column, rows) {
  const wanted = chunksShown(column, rows);
  const kept = Object.keys(column.pages).filter((k) => !wanted[k]);
  kept.slice(0, Math.max(0, kept.length + Object.keys(wanted).length - PAGES_KEPT)).forEach((k) => {
    delete column.pages[k];
  });
  let waited = false;
  return Promise.all(Object.keys(wanted).map((k) => {
    const page = pageOf(column, Number(k));
    waited = waited || page.values === null;
    return page.ready;
  })).then(() => waited);
}

/**
 * The values of a lazy column's cells at ``rows`` (its codes; a paged column's chunks of values too).
 * A paged column's chunks for the rows of a shard are fetched as soon as that shard's codes arrive,
 * not once every shard's have: a page sorted by another column holds rows of some 60 shards at full
 * size, whose values lie in some 60 chunks, and the two rounds of fetches then overlap. Resolves true
 * once they are there, when some were not at first.
 * @param {Column} column
 * @param {number[]} rows
 * @returns {Promise<boolean>}
 */
export function ensureCells(column, rows) {
  if (!column.paged || column.codes) {
    return ensureCodes(column, rows).then((fetchedCodes) => (column.paged ? ensurePages(column, rows) : Promise.resolve(false))
      .then((fetched) => fetched || fetchedCodes));
  }
  const waited = rows.some((row) => cell(column, row) === undefined);
  const starts = /** @type {number[]} */ (column.starts);
  /** @type {Record<string, number[]>} */
  const byShard = {};
  rows.forEach((row) => { const k = shardOf(starts, row); (byShard[k] = byShard[k] || []).push(row); });
  const codes = ensureCodes(column, rows); // each shard's entry is made now, its fetch under way
  const values = Object.keys(byShard).map((k) => {
    const entry = column.shardCodes[k];
    return (entry ? /** @type {Promise<void>} */ (entry.ready) : codes).then(() => Promise.all(
      Object.keys(chunksShown(column, byShard[k])).map((chunk) => pageOf(column, Number(chunk)).ready)));
  });
  return Promise.all([codes, ...values]).then(() => ensurePages(column, rows)).then(() => waited);
}

/**
 * A cell's value once its codes and values are fetched.
 * @param {Column} column
 * @param {number} row
 * @returns {Promise<Value | null | undefined>}
 */
export function cellLater(column, row) {
  return ensureCodes(column, [row])
    .then(() => (column.paged ? ensurePages(column, [row]) : null))
    .then(() => cell(column, row));
}

/**
 * The chunks of fragments a list of codes needs.
 * @param {number[]} codes
 * @param {number} chunk
 * @returns {number[]}
 */
export function chunksOf(codes, chunk) {
  return Array.from(new Set(codes.map((code) => Math.floor(code / chunk)))).sort((a, b) => a - b);
}

/**
 * A rendering joined again from its fragments' codes.
 * @param {number[]} codes
 * @param {Record<string, string[]>} chunks chunk number -> its fragments
 * @param {number} chunk
 * @returns {string}
 */
export function joinFragments(codes, chunks, chunk) {
  return codes.map((code) => {
    const part = chunks[Math.floor(code / chunk)];
    if (!part || code % chunk >= part.length) {
      throw new Error("the rendering names fragment " + code + ", which its files do not hold");
    }
    return part[code % chunk];
  }).join("");
}

/**
 * A dialogue's rendering, joined from its fragments: the shard of fragment codes holding it and the
 * chunks of fragments they name, each fetched once into ``held``.
 * @param {string} base the split's directory
 * @param {Renderings} files
 * @param {RenderingCache} held
 * @param {number} dialogue its position in the split
 * @returns {Promise<string>}
 */
export function fetchRendering(base, files, held, dialogue) {
  const per = files.per_shard;
  const shard = Math.floor(dialogue / per);
  if (!held.html[shard]) {
    held.html[shard] = fetchJson(base + files.shards[shard]);
    held.html[shard].catch(() => { delete held.html[shard]; });
  }
  return held.html[shard].then((list) => {
    const codes = list[dialogue - shard * per];
    /** @type {Record<string, string[]>} */
    const chunks = keyed();
    return Promise.all(chunksOf(codes, files.chunk).map((k) => {
      if (!held.fragments[k]) {
        held.fragments[k] = fetchJson(base + files.fragments[k]);
        held.fragments[k].catch(() => { delete held.fragments[k]; });
      }
      return held.fragments[k].then((part) => { chunks[k] = part; });
    })).then(() => joinFragments(codes, chunks, files.chunk));
  });
}
