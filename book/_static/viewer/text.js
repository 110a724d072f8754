/* Pure helpers of the viewer: numbers as shown, keys from untrusted strings, the search's words,
 * lengths as Python counts them, CSV cells. No DOM, no network: unit-tested under node. */

/* A search is cut to this many characters (the box says so), so that a pasted book or a crafted
 * link cannot make the tab test thousands of words against every row. */
export const SEARCH_CAP = 200;

const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

/**
 * A value as the viewer shows it: numbers grouped, missing as an en dash.
 * @param {unknown} value
 * @returns {string}
 */
export function fmt(value) {
  if (value === null || value === undefined || (typeof value === "number" && !isFinite(value))) {
    return "\u2013";
  }
  return typeof value === "number" ? numberFormat.format(value) : String(value);
}

/**
 * An object for keys that come from a URL or from the data (column names, label values, levels):
 * it has no prototype, so "__proto__", "constructor" or "toString" are keys like any other, not the
 * members every plain object inherits.
 * @template T
 * @returns {Record<string, T>}
 */
export function keyed() {
  return Object.create(null);
}

/**
 * ``object[key]`` when the object itself holds it (never an inherited member), else undefined.
 * @template T
 * @param {Record<string, T> | null | undefined} object
 * @param {string} key
 * @returns {T | undefined}
 */
export function own(object, key) {
  return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/**
 * The needles of a search. Words must all occur; "quoted text" must occur as written (case and
 * runs of spaces aside). At most SEARCH_CAP characters are read; a word said twice, or held in
 * another word or phrase of the search (a row holding "jazz band" holds "jazz"), is tested once.
 * @param {string} text
 * @returns {string[]}
 */
export function parseQuery(text) {
  /** @type {string[]} */
  const needles = [];
  const rest = String(text).slice(0, SEARCH_CAP).replace(/"([^"]*)"/g, (_, phrase) => {
    const clean = phrase.toLowerCase().replace(/\s+/g, " ").trim();
    if (clean) { needles.push(clean); }
    return " ";
  });
  rest.toLowerCase().split(/\s+/).forEach((word) => {
    if (word && word !== '"') { needles.push(word.replace(/"/g, "")); }
  });
  const unique = needles.filter((needle, k) => needle && needles.indexOf(needle) === k);
  return unique.filter((needle) => !unique.some((other) => other !== needle && other.indexOf(needle) !== -1));
}

/**
 * The length of a string as Python counts it (code points, not UTF-16 units).
 * @param {string} text
 * @returns {number}
 */
export function codePoints(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xdc00 && code <= 0xdfff) { n -= 1; }
  }
  return n;
}

/**
 * A cell of a downloaded CSV. A text starting with "=", "+", "-", "@", a tab or a carriage return
 * would be read as a formula by a spreadsheet (data could run a command or send a cell away), so
 * it gets a leading single quote, as OWASP recommends for CSV injection; numbers stay as they are
 * (a negative number is not a formula).
 * @param {unknown} value
 * @returns {string}
 */
export function csvCell(value) {
  if (value === null || value === undefined) {
    return "";
  }
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value !== "number" && typeof value !== "bigint" && /^[=+\-@\t\r]/.test(text)) {
    text = "'" + text;
  }
  return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}

/**
 * A whole CSV file (CRLF line ends, as RFC 4180 writes them).
 * @param {string[]} names
 * @param {unknown[][]} rows
 * @returns {string}
 */
export function csvText(names, rows) {
  return [names.map(csvCell).join(",")].concat(rows.map((row) => row.map(csvCell).join(","))).join("\r\n") + "\r\n";
}

/**
 * A value as a cell of the grid or of a query's result: a list joined, missing as nothing.
 * @param {unknown} value
 * @returns {string}
 */
export function cellText(value) {
  if (value === null || value === undefined) {
    return "";
  }
  if (Array.isArray(value)) {
    return value.map(String).join(", ");
  }
  if (typeof value === "number") {
    return fmt(value);
  }
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

const resultFraction = new Intl.NumberFormat("en-US", { maximumFractionDigits: 4 });
const resultInteger = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/**
 * A cell of a query's result as the console shows it: a fraction to 4 decimals (2.360381861575179 is
 * 2.3604), a whole number with thousands separators (1234567 is 1,234,567), a list joined; missing as
 * nothing. Only the display: the downloaded CSV keeps every digit.
 * @param {unknown} value
 * @returns {string}
 */
export function resultText(value) {
  if (value === null || value === undefined) {
    return "";
  }
  if (typeof value === "number") {
    if (!isFinite(value)) { return String(value); }
    return Number.isInteger(value) ? resultInteger.format(value) : resultFraction.format(value);
  }
  if (typeof value === "bigint") {
    return resultInteger.format(value);
  }
  if (typeof value === "string" && /^-?\d{16,}$/.test(value)) { // an integer past 2^53, kept as its digits
    return resultInteger.format(BigInt(value));
  }
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * A whole CSV file of a level's rows, built in pieces of ``step`` rows (a split's level can hold
 * hundreds of thousands): ``valueOf(row, k)`` is the value of column k at the row.
 * @param {string[]} names
 * @param {ArrayLike<number>} rows
 * @param {(row: number, k: number) => unknown} valueOf
 * @returns {string[]} the file's parts, joined by a Blob
 */
export function csvParts(names, rows, valueOf) {
  const parts = [names.map(csvCell).join(",") + "\r\n"];
  const step = 5000;
  for (let start = 0; start < rows.length; start += step) {
    const lines = [];
    for (let i = start; i < Math.min(rows.length, start + step); i += 1) {
      const line = [];
      for (let k = 0; k < names.length; k += 1) { line.push(csvCell(valueOf(rows[i], k))); }
      lines.push(line.join(","));
    }
    parts.push(lines.join("\r\n") + "\r\n");
  }
  return parts;
}
