/**
 * The quick config check may skip the schema only where the schema would have said yes and given
 * the same value: on complete configs (the recorded configs of the tapes in tapes/, every default,
 * and variants), and on the same configs with random changes anywhere in them (a key removed, an
 * unknown key added, a value replaced), whatever it accepts the schema accepts and parses to the
 * same value, key order included. And it does accept the complete ones, so a replay skips the schema.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentConfigSchema } from './config.js';
import { quickConfig } from './quick-config-check.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const TAPES = fileURLToPath(new URL('../../tapes/', import.meta.url));
const recorded = readdirSync(TAPES)
  .filter((name) => name.endsWith('.jsonl'))
  .map((name) => (JSON.parse(readFileSync(TAPES + name, 'utf8').split('\n')[0]!) as { run: { config: Json } }).run.config);
const defaults = agentConfigSchema().parse({}) as unknown as Json;
const variants: Json[] = [
  { ...(defaults as Record<string, Json>), temperature: 0.7, sandbox: 'none', redact: ['sk-[a-z]+'], toolTimeouts: { exec_shell: 5000 } },
  { ...(defaults as Record<string, Json>), prices: { m: { input: 1, output: 2.5 } }, context: { strategy: 'compact', window: 1000, keepLast: 2 } },
  {
    ...(defaults as Record<string, Json>),
    mcpServers: {
      files: { command: 'node', args: ['server.js', '${AGENTCTL_WORKSPACE}'], env: { TOKEN: '${MY_TOKEN}' }, cwd: '.', tools: { write_file: { idempotent: true } } },
      docs: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer [REDACTED]' }, timeoutMs: 5000 },
      'mem-2': { type: 'stdio', command: 'npx', tools: { 'create/entities': { mutating: false, idempotent: true } } },
    },
  },
];
const COMPLETE: Json[] = [...recorded, defaults, ...variants];

function containers(value: Json, out: (Json[] | { [key: string]: Json })[] = []): (Json[] | { [key: string]: Json })[] {
  if (value !== null && typeof value === 'object') {
    out.push(value);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

const mutation = fc.record({
  where: fc.nat(),
  which: fc.nat(),
  kind: fc.constantFrom('delete', 'add', 'replace'),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 1 }),
    fc.constantFrom(-1, 0, 1, 1.5, 2, 2.5, -0, 2 ** 60, '', 'x', '(', 'none', 'compact', 'http', 'sse', 'stdio', null, true, false, [], {}, ['a'], [''], { network: true }, { input: 1, output: 1 }, { command: 'x' }, { url: 'u' }),
  ),
});

function mutate(value: Json, m: { where: number; which: number; kind: string; value: unknown }): Json {
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  const targets = containers(copy);
  const target = targets[m.where % targets.length]!;
  const keys = Object.keys(target);
  const key = keys.length === 0 ? undefined : keys[m.which % keys.length]!;
  if (m.kind === 'add' && !Array.isArray(target)) target[['extra', 'temperature', 'sandbox', '__proto__', 'command', 'url', 'type', 'mcpServers', 'bad name!'][m.which % 9]!] = m.value as Json;
  else if (m.kind === 'delete' && key !== undefined) {
    if (Array.isArray(target)) target.splice(Number(key), 1);
    else delete target[key];
  } else if (key !== undefined) (target as Record<string, Json>)[key] = m.value as Json;
  return copy;
}

function agreesWithSchema(value: unknown): void {
  const quick = quickConfig(value);
  if (quick === undefined) return;
  const parsed = agentConfigSchema().safeParse(value);
  expect(parsed.success, JSON.stringify(value)).toBe(true);
  expect(quick).toEqual(parsed.data);
  expect(JSON.stringify(quick)).toBe(JSON.stringify(parsed.data));
  expect(quick).not.toBe(value);
}

describe('quick config check', () => {
  it('accepts complete configs, as the schema parses them', () => {
    expect(recorded.length).toBeGreaterThan(0);
    for (const config of COMPLETE) {
      expect(quickConfig(config), JSON.stringify(config)).toBeDefined();
      agreesWithSchema(config);
    }
  });

  it('accepts a changed config only when the schema does too, and gives the same value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...COMPLETE), fc.array(mutation, { minLength: 1, maxLength: 3 }), (config, mutations) => {
        let value = config;
        for (const m of mutations) {
          value = mutate(value, m);
          agreesWithSchema(value);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with the schema on the edges of mcpServers: names, tool names, transports', () => {
    const base = defaults as Record<string, Json>;
    const edges: Json[] = [
      { 'bad name!': { command: 'a' } },
      { ['x'.repeat(49)]: { command: 'a' } },
      { ['x'.repeat(48)]: { command: 'a' } },
      { files: { command: 'a', tools: { 'has space': { idempotent: true } } } },
      { files: { command: 'a', tools: { ['t'.repeat(129)]: {} } } },
      { files: { command: 'a', tools: { 'read/file': {} } } },
      { files: { type: 'sse', url: 'u' } },
      { files: { type: 'http', command: 'a' } },
      { files: { url: 'u', env: {} } },
      { files: { command: 'a', env: { '': 'x' } } },
      { files: {} },
      { files: { command: '' } },
    ];
    for (const mcpServers of edges) agreesWithSchema({ ...base, mcpServers });
    expect(quickConfig({ ...base, mcpServers: { ['x'.repeat(48)]: { command: 'a' } } })).toBeDefined();
  });

  it('leaves an incomplete config to the schema (defaults to fill in), and values it cannot vouch for', () => {
    expect(quickConfig({})).toBeUndefined();
    expect(quickConfig({ ...(defaults as Record<string, Json>), limits: {} })).toBeUndefined();
    expect(quickConfig({ ...(defaults as Record<string, Json>), maxTokens: Infinity })).toBeUndefined();
    expect(quickConfig(JSON.parse(`{"__proto__":{},${JSON.stringify(defaults).slice(1)}`))).toBeUndefined();
    expect(quickConfig({ ...(defaults as Record<string, Json>), toolTimeouts: JSON.parse('{"__proto__":5}') })).toBeUndefined();
    // Nor a key named like object machinery in any record: load-config.ts refuses those by name.
    expect(quickConfig({ ...(defaults as Record<string, Json>), toolTimeouts: { constructor: 5 } })).toBeUndefined();
    expect(quickConfig({ ...(defaults as Record<string, Json>), prices: { prototype: { input: 1, output: 1 } } })).toBeUndefined();
    expect(quickConfig({ ...(defaults as Record<string, Json>), tools: ['read_file', , 'x'] })).toBeUndefined();
  });
});
