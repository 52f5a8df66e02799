/**
 * `read_file`'s limits, apart from the tool so that its argument schema (arg-schemas.ts) can name
 * the default without importing the tool, which imports the schemas back (tool-args.ts).
 */

/** Lines returned when the model gives no `limit`. */
export const DEFAULT_READ_LIMIT = 2000;
/** Files larger than this are refused rather than read into memory. */
export const MAX_READ_BYTES = 16 * 1024 * 1024;
