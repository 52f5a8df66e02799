/**
 * Custom tools from a JavaScript module named in the config. The module's default export (or its
 * named export `tools`) is an array of tool objects; each is checked here, so a mistake in the
 * module is a usage error naming the module and the field, not a crash in the middle of a run.
 *
 * Missing semantics default to the cautious side: NOT idempotent and mutating. (The opposite of
 * REGISTRY_MISS_SEMANTICS, which covers a tool with no spec at all, per docs/guardrails.md §2.) A module author
 * who says nothing gets a tool that is never deduplicated, never run live off-tape during replay
 * without --allow-side-effects, and whose success resets the guardrails' memory — wasteful at
 * worst, whereas the other default could silently skip a second `send_email`.
 */
import { access } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidOptionError } from '../core/errors.js';
import type { Tool } from './tool.js';

/** Time limit of a custom tool that states none. */
export const DEFAULT_CUSTOM_TIMEOUT_MS = 30_000;

/** Where in the export an issue is, as `tools[1].name`. */
function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`), 'tools');
}

/**
 * Load the custom tools of `modulePath` (relative to `baseDir`, normally the config file's
 * directory). Throws InvalidOptionError when the module is missing, fails to load, or exports something
 * that is not a valid tool list.
 */
export async function loadCustomTools(modulePath: string, baseDir: string): Promise<Tool[]> {
  const file = isAbsolute(modulePath) ? modulePath : resolve(baseDir, modulePath);
  try {
    await access(file);
  } catch (error) {
    throw new InvalidOptionError(`custom tools module ${modulePath} not found (looked at ${file})`, { cause: error });
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidOptionError(`custom tools module ${modulePath} failed to load: ${reason}`, { cause: error });
  }
  const exported = loaded.default ?? loaded.tools;
  if (exported === undefined) {
    throw new InvalidOptionError(`custom tools module ${modulePath} has no default export and no export named 'tools'`, {
      hint: 'export an array of tools: export default [{ name, description, parameters, run }]',
    });
  }
  // The schema (and zod) are loaded only here, when a config names tool modules (start-up stays short otherwise).
  const { moduleSchema } = await import('./custom-tool-schema.js');
  const result = moduleSchema.safeParse(exported);
  if (!result.success) {
    const issue = result.error.issues[0];
    const detail = issue === undefined ? 'invalid' : `${issuePath(issue.path)}: ${issue.message}`;
    throw new InvalidOptionError(`custom tools module ${modulePath} is invalid: ${detail}`);
  }
  const seen = new Set<string>();
  return result.data.map((spec): Tool => {
    if (seen.has(spec.name)) throw new InvalidOptionError(`custom tools module ${modulePath} defines tool '${spec.name}' twice`);
    seen.add(spec.name);
    const run = spec.run;
    return {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      idempotent: spec.idempotent ?? false,
      mutating: spec.mutating ?? true,
      timeoutMs: spec.timeoutMs ?? DEFAULT_CUSTOM_TIMEOUT_MS,
      // Await in an async wrapper: a run that throws synchronously becomes a rejection like any other.
      // The executor turns non-string results into text.
      run: async (args, ctx) => (await run(args, ctx)) as string,
    };
  });
}
