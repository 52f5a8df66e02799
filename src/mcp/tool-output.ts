/**
 * The text a model reads for an MCP tool's answer (a `CallToolResult`): the text parts joined with
 * newlines, every other part named by what it is (`[image image/png]`, `[resource file:///a.txt]`),
 * and `isError` kept apart, as the tape's `tool_result` holds it (status `error`). A result with no
 * content but structured content reads as that JSON.
 */
import { canonicalJson } from '../guardrails/canonical-json.js';

export interface ToolOutput {
  text: string;
  isError: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** One content part as text. */
function partText(part: unknown): string {
  if (!isObject(part)) return '[content]';
  switch (part['type']) {
    case 'text':
      return str(part['text']) ?? '';
    case 'image':
    case 'audio':
      return `[${part['type']} ${str(part['mimeType']) ?? 'unknown'}]`;
    case 'resource': {
      const resource = isObject(part['resource']) ? part['resource'] : {};
      return `[resource ${str(resource['uri']) ?? 'unknown'}]`;
    }
    case 'resource_link':
      return `[resource ${str(part['uri']) ?? 'unknown'}]`;
    default:
      return `[${str(part['type']) ?? 'content'}]`;
  }
}

export function toolOutputText(result: Record<string, unknown>): ToolOutput {
  const isError = result['isError'] === true;
  const content = Array.isArray(result['content']) ? result['content'] : [];
  if (content.length === 0 && result['structuredContent'] !== undefined) {
    return { text: canonicalJson(result['structuredContent']), isError };
  }
  return { text: content.map(partText).join('\n'), isError };
}
