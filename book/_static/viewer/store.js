/* What a viewer has fetched of its splits: per split its manifest, the level on screen (another one
 * is fetched again when the reader opens it) and the renderings' shards and fragments, each fetched
 * once and forgotten again when its fetch failed. */

import { fetchManifest, fetchRendering, loadLevelData } from "./data.js";
import { keyed } from "./text.js";

/** @typedef {import("./data.js").LevelData} LevelData */
/** @typedef {import("./data.js").Manifest} Manifest */
/** @typedef {import("./data.js").Renderings} Renderings */

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

/**
 * @typedef {object} SplitStore
 * @property {(split: SplitEntry) => CacheEntry} entry
 * @property {(split: SplitEntry) => Promise<Manifest>} manifest
 * @property {(split: SplitEntry, level: string, onFirst?: (first: LevelData, rows: number) => void) => Promise<LevelData>} load
 * a level's rows as the viewer holds them (``onFirst``: see data.js's loadLevelData; not called for a level held already)
 * @property {(split: SplitEntry, level: string) => void} forgetOtherLevels
 * @property {(split: SplitEntry, files: Renderings, dialogue: number) => Promise<string>} rendering a dialogue as
 * the atlas renders it
 * @property {(split: SplitEntry) => Promise<string | null>} withheld why a split's rows are not published, if so
 */

/**
 * @param {string} siteRoot
 * @returns {SplitStore}
 */
export function splitStore(siteRoot) {
  /** @type {Record<string, CacheEntry>} */
  const cache = keyed();
  /** @param {SplitEntry} split @returns {CacheEntry} */
  const entry = (split) => cache[split.path] || (cache[split.path] = { levels: keyed(), html: keyed(), fragments: keyed() });
  /** @param {SplitEntry} split @returns {Promise<Manifest>} */
  const manifest = (split) => {
    const held = entry(split);
    if (!held.manifest) {
      held.manifest = fetchManifest(siteRoot + split.path + "manifest.json");
      held.manifest.catch(() => { delete held.manifest; });
    }
    return held.manifest;
  };
  return {
    entry,
    manifest,
    load(split, level, onFirst) {
      const held = entry(split);
      return manifest(split).then((loaded) => {
        if (!held.levels[level]) {
          held.levels[level] = loadLevelData(siteRoot + split.path, loaded, level, onFirst);
        }
        return held.levels[level];
      }).catch((error) => {
        delete held.levels[level];
        throw error;
      });
    },
    forgetOtherLevels(split, level) {
      Object.keys(cache).forEach((path) => {
        Object.keys(cache[path].levels).forEach((other) => {
          if (path !== split.path || other !== level) { delete cache[path].levels[other]; }
        });
      });
    },
    rendering(split, files, dialogue) {
      return fetchRendering(siteRoot + split.path, files, entry(split), dialogue);
    },
    withheld(split) {
      return fetch(siteRoot + split.path + "withheld.json").then((response) => (response.ok ? response.json() : null))
        .then((info) => (info ? "The rows of " + info.dataset + " are not published with this site: its licence (" +
          info.licence + ") decides, " + info.reason + ". A local build of the book (make book) has the full viewer." : null),
        () => null);
    },
  };
}
