/* Apache Arrow as an ES module, for DuckDB-WASM's duckdb-browser.mjs (see book/_ext/atlas_book.py).
 * viewer.js loads the Arrow bundle (_static/vendor/duckdb/Arrow.es2015.min.js), which defines the
 * global Arrow, before importing DuckDB; this re-exports the names DuckDB uses. */
const Arrow = globalThis.Arrow;
if (!Arrow) {
  throw new Error("Apache Arrow is not loaded: load Arrow.es2015.min.js before duckdb-browser.mjs");
}
export const Type = Arrow.Type;
export const Table = Arrow.Table;
export const RecordBatchReader = Arrow.RecordBatchReader;
export const tableToIPC = Arrow.tableToIPC;
export default Arrow;
