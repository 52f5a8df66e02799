import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../agent/load-config.js';
import { buildRegistry } from '../agent/tool-registry.js';
import { InvalidOptionError } from '../core/errors.js';
import { DEFAULT_CUSTOM_TIMEOUT_MS, loadCustomTools } from './custom-tools.js';
import { executeTool } from './executor.js';
import { ToolRegistry } from './registry.js';
import { useTempDirs } from './test-support/temp-dirs.js';

const tempDir = useTempDirs();
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const GOOD_TOOL = "{ name: 'ping', description: 'ping', parameters: { type: 'object' }, run: async () => 'pong' }";

/** Write a module with `source` into a temp dir and return [dir, file name]. */
async function moduleWith(source: string): Promise<[string, string]> {
  const dir = await tempDir();
  await writeFile(join(dir, 'tools.mjs'), source);
  return [dir, 'tools.mjs'];
}

async function loadError(source: string): Promise<InvalidOptionError> {
  const [dir, file] = await moduleWith(source);
  const error = await loadCustomTools(file, dir).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidOptionError);
  return error as InvalidOptionError;
}

describe('loadCustomTools', () => {
  it('loads the send_email fixture, which really sends once per call', async () => {
    const tools = await loadCustomTools('fixtures/tools/send-email.mjs', repoRoot);
    expect(tools.map((tool) => [tool.name, tool.idempotent, tool.mutating, tool.timeoutMs])).toEqual([
      ['send_email', false, false, 5000],
    ]);
    const ws = await tempDir();
    const registry = ToolRegistry.fromNames(['send_email'], { custom: tools });
    const args = { to: 'a@example.com', subject: 'hi', body: 'hello' };
    await expect(executeTool(registry, 'send_email', args, { workspace: ws })).resolves.toMatchObject({
      status: 'ok',
      output: 'email sent to a@example.com',
    });
    await executeTool(registry, 'send_email', args, { workspace: ws });
    expect((await readFile(join(ws, 'outbox.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(2);
    await expect(executeTool(registry, 'send_email', { to: 'nobody' }, { workspace: ws })).resolves.toMatchObject({
      status: 'error',
      output: 'invalid recipient: nobody',
    });
  });

  it('accepts a named `tools` export and an absolute path, defaulting to the cautious semantics', async () => {
    const [dir, file] = await moduleWith(`export const tools = [${GOOD_TOOL}];`);
    const [tool] = await loadCustomTools(join(dir, file), '/somewhere/else');
    expect(tool).toMatchObject({ name: 'ping', idempotent: false, mutating: true, timeoutMs: DEFAULT_CUSTOM_TIMEOUT_MS });
    await expect(tool?.run({}, { workspace: dir, signal: new AbortController().signal })).resolves.toBe('pong');
  });

  it('refuses a missing module and one that fails to load', async () => {
    const dir = await tempDir();
    await expect(loadCustomTools('missing.mjs', dir)).rejects.toThrow(/custom tools module missing.mjs not found/);
    expect((await loadError('export default [;')).message).toMatch(/tools.mjs failed to load/);
    expect((await loadError("throw new Error('kaboom');")).message).toMatch(/failed to load: kaboom/);
  });

  it.each([
    ['no export', 'export const other = 1;', /no default export and no export named 'tools'/],
    ['not an array', `export default ${GOOD_TOOL};`, /is invalid: tools: /],
    ['a missing name', "export default [{ description: 'd', parameters: { type: 'object' }, run() {} }];", /tools\[0\]\.name/],
    ['a bad name', "export default [{ name: 'has space', description: 'd', parameters: { type: 'object' }, run() {} }];", /tools\[0\]\.name: must be/],
    ['no run function', "export default [{ name: 'x', description: 'd', parameters: { type: 'object' }, run: 'no' }];", /tools\[0\]\.run: must be a function/],
    ['parameters not an object schema', "export default [{ name: 'x', description: 'd', parameters: { type: 'string' }, run() {} }];", /tools\[0\]\.parameters/],
    ['a non-boolean flag', `export default [${GOOD_TOOL}, { name: 'y', description: 'd', parameters: { type: 'object' }, idempotent: 'yes', run() {} }];`, /tools\[1\]\.idempotent/],
    ['a bad timeout', "export default [{ name: 'x', description: 'd', parameters: { type: 'object' }, timeoutMs: -1, run() {} }];", /tools\[0\]\.timeoutMs/],
    ['a duplicate name', `export default [${GOOD_TOOL}, ${GOOD_TOOL}];`, /defines tool 'ping' twice/],
    // The bounds a tape's recorded spec is held to (core/tool-spec-schema.ts): a run never writes a tape that reads back refused.
    ['a description too long for a tape', "export default [{ name: 'x', description: 'd'.repeat(16385), parameters: { type: 'object' }, run() {} }];", /tools\[0\]\.description/],
    ['parameters too large for a tape', "export default [{ name: 'x', description: 'd', parameters: { type: 'object', p: 'p'.repeat(65536) }, run() {} }];", /at most 65536 characters/],
    ['more tools than a tape holds', 'export default Array.from({ length: 129 }, (_, i) => ({ name: \'t\' + i, description: \'d\', parameters: { type: \'object\' }, run() {} }));', /tools: /],
  ])('refuses a module with %s, naming the module and the field', async (_what, source, message) => {
    const error = await loadError(source);
    expect(error.message).toMatch(/custom tools module tools\.mjs/);
    expect(error.message).toMatch(message);
    expect(error.exitCode).toBe(2);
  });
});

describe('buildRegistry', () => {
  it('refuses more custom tools in all than a tape holds, however many modules they come from', async () => {
    const dir = await tempDir();
    const many = (prefix: string): string =>
      `export default Array.from({ length: 65 }, (_, i) => ({ name: '${prefix}' + i, description: 'd', parameters: { type: 'object' }, run() {} }));`;
    await writeFile(join(dir, 'a.mjs'), many('a'));
    await writeFile(join(dir, 'b.mjs'), many('b'));
    const config = parseConfig({ tools: [], toolModules: ['a.mjs', 'b.mjs'] }, 'test config');
    await expect(buildRegistry(config, dir)).rejects.toThrow(/130 custom tools: a run may have at most 128/);
    await expect(buildRegistry({ ...config, toolModules: ['a.mjs'] }, dir)).resolves.toBeDefined();
  });
});
