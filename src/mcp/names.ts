/**
 * The names the model sees for MCP tools. Two servers may both have a `read_file`, and so may the
 * built-in tools, so each MCP tool is offered as `<server>__<tool>` (the server's name from the
 * config, two underscores, the tool's own name) — with every character a model's function name
 * cannot hold written as `_`. A name that would still be too long, or that two tools would share,
 * is refused before the run starts.
 */
import { InvalidOptionError } from '../core/errors.js';

/** OpenAI's limit on a function name. */
const MAX_NAME = 64;

/** The name the model is shown for `tool` of `server`. Throws InvalidOptionError when it is longer than a model takes. */
export function modelToolName(server: string, tool: string): string {
  const name = `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (name.length > MAX_NAME) {
    throw new InvalidOptionError(`MCP tool '${tool}' of server '${server}' would be offered to the model as '${name}', longer than ${MAX_NAME} characters`, {
      hint: 'give the server a shorter name in \'mcpServers\'',
    });
  }
  return name;
}
