/**
 * How much of an HTTP exchange a tape keeps. A module of its own, with nothing but the tape's limits
 * behind it: a replay reads these bounds (a --patch file is held to them) without loading the
 * exchange code and its schemas.
 */
import { TAPE_LIMITS } from '../../tape/tape-limits.js';

/*
 * How much of one call a tape keeps. Every event is one line of a tape, and a line holds at most
 * TAPE_LIMITS.maxLineBytes (64 MiB): an opaque exchange carries its request and its reply on one
 * line, a whole model reply its body and the answer read from it, and a text body may double when
 * written as a JSON string (its quotes, backslashes and line breaks escaped; other control
 * characters make a body not text). The shares below keep every such line under the limit.
 */

/**
 * The most of one reply body a tape keeps on a line: of an opaque exchange's reply (a larger one is
 * passed on whole but kept cut short, `truncated`), of a whole model reply (a larger one is refused),
 * of one server-sent event of a stream (a larger one cuts the stream).
 */
export const MAX_RECORDED_BODY = TAPE_LIMITS.maxLineBytes / 8;

/**
 * The most of one stream a tape keeps, its events together (a longer one is cut): its events are
 * held until it ends, so that its text is redacted as a whole.
 */
export const MAX_RECORDED_STREAM = TAPE_LIMITS.maxLineBytes / 2;

/** The largest request body a recording takes (the proxy refuses a larger one: `--max-body`). */
export const MAX_RECORDED_REQUEST = TAPE_LIMITS.maxLineBytes / 4;
