/**
 * What a model reads of an MCP tool's result. A `tools/call` result holds a list of content parts
 * (text, images, audio, resources, resource links), perhaps `structuredContent`, and `isError`.
 * A model's tool message is text, so the text parts are joined with "\n" and every other part is
 * named in brackets (`[image image/png]`, `[resource file:///a.txt]`) — never its bytes, which a
 * tape would hold as base64 for nothing. A result with no text at all but structured content is
 * shown as that content's JSON. The built-in agent's MCP tools and the record/replay wrapper write
 * the same words, so a run's `tool_result.output` reads the same whoever called the server.
 */

export interface McpToolOutput {
  /** Whether the server said the call failed (`isError: true`): the model reads it as a tool error. */
  isError: boolean;
  /** The text the model is given. */
  text: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A content part as the model reads it, or undefined for a part that is not an object. */
function partText(part: unknown): string | undefined {
  if (!isObject(part)) return undefined;
  const type = typeof part['type'] === 'string' ? part['type'] : 'unknown';
  switch (type) {
    case 'text':
      return typeof part['text'] === 'string' ? part['text'] : '';
    case 'image':
    case 'audio':
      return typeof part['mimeType'] === 'string' ? `[${type} ${part['mimeType']}]` : `[${type}]`;
    case 'resource': {
      const resource = part['resource'];
      const uri = isObject(resource) && typeof resource['uri'] === 'string' ? resource['uri'] : undefined;
      return uri === undefined ? '[resource]' : `[resource ${uri}]`;
    }
    case 'resource_link':
      return typeof part['uri'] === 'string' ? `[resource ${part['uri']}]` : '[resource]';
    default:
      return `[${type}]`;
  }
}

/** The text a model reads of a `tools/call` result (see the module comment). */
export function mcpToolOutput(result: Record<string, unknown>): McpToolOutput {
  const isError = result['isError'] === true;
  const content = Array.isArray(result['content']) ? result['content'] : [];
  const parts = content.map(partText).filter((text): text is string => text !== undefined);
  const hasText = content.some((part) => isObject(part) && part['type'] === 'text');
  const structured = result['structuredContent'];
  if (!hasText && structured !== undefined) {
    return { isError, text: [JSON.stringify(structured), ...parts].join('\n') };
  }
  return { isError, text: parts.join('\n') };
}
