/**
 * The bounds of a tool's spec (tool-spec-schema.ts): the same for a custom tools module and for the
 * spec a tape records of one, so a tool a run could load gives a tape that reads back. Apart from the
 * schema so that code which only counts (the registry) loads no zod.
 */

/** Custom tools one run may have (OpenAI's limit on the tools of one request). */
export const MAX_CUSTOM_TOOLS = 128;
/** Characters in a tool's description. */
export const MAX_TOOL_DESCRIPTION = 16_384;
/** Characters in the JSON text of a tool's argument schema. */
export const MAX_TOOL_PARAMETERS_JSON = 65_536;
/** Levels of nesting in a tool's argument schema (a tape line holds at most 64). */
export const MAX_TOOL_PARAMETERS_DEPTH = 32;
