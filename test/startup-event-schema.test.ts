/**
 * Start-up cost: replaying a valid tape never loads the zod event schema
 * (src/core/event-schema.ts, loaded through src/tape/schema.ts, a chunk of its own in the bundle;
 * test/startup-lazy-schemas.test.ts shows no zod at all is loaded). The quick event check vouches for every
 * event of a plain tape; the schema is loaded only for an event it cannot decide — shown here too,
 * so the trace is known to see the chunk when it is loaded.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/cli.js';
import { traced } from './support/traced.js';

const TAPES = ['demo-loop', 'cancelled'].map((name) => fileURLToPath(new URL(`../tapes/${name}.tape.jsonl`, import.meta.url)));
const TRACE = fileURLToPath(new URL('./support/trace-bundle-chunks.mjs', import.meta.url));
const EVENT_SCHEMA = /^CHUNK-LOADED schema-[^ ]*\.js$/m;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-event-schema-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('start-up: the event schema', () => {
  it('is not loaded by a --no-save replay of a valid tape', async () => {
    for (const tape of TAPES) {
      const result = await traced(TRACE, [BIN, 'replay', tape, '--no-save', '--quiet', '--store', join(dir, 'store')]);
      expect(result.code, `${tape}: ${result.stderr}`).toBe(0);
      expect(result.stderr).toMatch(/^CHUNK-LOADED main\.js$/m);
      expect(result.stderr, tape).not.toMatch(EVENT_SCHEMA);
    }
  });

  it('is loaded when an event needs it, and then refuses a bad one as before', async () => {
    const lines = (await readFile(TAPES[0]!, 'utf8')).trimEnd().split('\n');
    // A state event with a key too many: the quick check leaves it to the schema, which refuses it.
    const at = lines.findIndex((line) => line.includes('"type":"state"'));
    const bad = JSON.parse(lines[at]!) as Record<string, unknown>;
    lines[at] = JSON.stringify({ ...bad, extra: 1 });
    const tape = join(dir, 'bad.tape.jsonl');
    await writeFile(tape, lines.join('\n') + '\n');
    const result = await traced(TRACE, [BIN, 'replay', tape, '--no-save', '--quiet', '--store', join(dir, 'store')]);
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(EVENT_SCHEMA);
    expect(result.stderr).toMatch(/invalid event: .*extra/);
  });
});
