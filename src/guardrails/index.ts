/** The guardrail engine (SPEC.md §1–§6): pure code, no I/O, no clock, no randomness. */
export { canonicalJson } from './canonical-json.js';
