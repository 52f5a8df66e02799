/**
 * What an MCP tool's annotations say, as agentctl's guardrails and replay policy read a tool
 * (docs/mcp.md, "Annotations"). The protocol's defaults are the cautious ones — a tool that says
 * nothing may change things and may not be repeated — and so are agentctl's:
 *
 * - `readOnlyHint: true` → idempotent, not mutating (reading twice does nothing more than once);
 * - otherwise → mutating, and idempotent only with `idempotentHint: true`.
 *
 * A replay runs a call its tape does not have only for a tool that says it is read-only and does not
 * say it is not idempotent; every other call is refused (`replaySafe`).
 */

/** The annotations of the protocol (2025-03-26 and later); every field optional, each a hint. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolFlags {
  idempotent: boolean;
  mutating: boolean;
}

/** The annotations of a tool as a server listed them: only the boolean hints are read, whatever else is there. */
export function annotationsOf(value: unknown): McpToolAnnotations {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const read: McpToolAnnotations = {};
  const source = value as Record<string, unknown>;
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    if (typeof source[hint] === 'boolean') read[hint] = source[hint];
  }
  if (typeof source['title'] === 'string') read.title = source['title'];
  return read;
}

/** The guardrails' flags of a tool with these annotations (see the module comment). */
export function flagsOf(annotations: McpToolAnnotations | undefined): ToolFlags {
  if (annotations?.readOnlyHint === true) return { idempotent: true, mutating: false };
  return { idempotent: annotations?.idempotentHint === true, mutating: true };
}

/** Whether a replay may run a call of this tool that its tape does not have: read-only, and not said to be anything but idempotent. */
export function replaySafe(annotations: McpToolAnnotations | undefined): boolean {
  return annotations?.readOnlyHint === true && annotations.idempotentHint !== false;
}
