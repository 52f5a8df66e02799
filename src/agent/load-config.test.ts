import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, NotFoundError } from '../core/errors.js';
import { DEFAULT_TOOLS } from './config.js';
import { loadConfigFile } from './config-file.js';
import { applyOverrides, parseConfig } from './load-config.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentctl-config-test-'));
  dirs.push(dir);
  const file = join(dir, name);
  await writeFile(file, text, 'utf8');
  return file;
}

/** The InvalidOptionError `fn` throws (fails the test if it throws anything else, or nothing). */
function invalidOption(fn: () => unknown): InvalidOptionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError);
    return error as InvalidOptionError;
  }
  throw new Error('expected an InvalidOptionError, nothing was thrown');
}

describe('parseConfig', () => {
  it('an empty config is a complete one: every default filled in', () => {
    const config = parseConfig({}, 'config');
    expect(config).toMatchObject({
      model: 'gpt-4o-mini',
      tools: DEFAULT_TOOLS,
      toolModules: [],
      toolTimeouts: {},
      seed: 0,
      stream: false,
      maxTokens: 0,
      guardrails: {
        identicalCallBlock: 3, failureWarn: 3, failureHalt: 8, maxRepeatedToolSteps: 3, maxTokensRecoveries: 2,
        haltNudges: 0, reserveTokens: 512, reserveCostFraction: 0.1,
      },
      limits: { maxSteps: 50, timeoutMs: 0, tokenBudget: 0, costLimit: 0, maxRetries: 3 },
      context: { strategy: 'sliding_window', window: 0, keepLast: 8 },
      prices: {},
    });
    expect(config.temperature).toBeUndefined();
  });

  it('a key named like object machinery, at any depth, is refused by name: a config goes on the tape, which holds none', () => {
    const cases: Array<[unknown, string]> = [
      [{ toolTimeouts: { constructor: 5 } }, 'a key named "constructor" (at toolTimeouts.constructor)'],
      [{ prices: { prototype: { input: 1, output: 1 } } }, 'a key named "prototype" (at prices.prototype)'],
      [{ mcpServers: { constructor: { command: 'a' } } }, 'a key named "constructor" (at mcpServers.constructor)'],
      [{ mcpServers: { files: { command: 'a', tools: { prototype: { idempotent: true } } } } }, 'a key named "prototype" (at mcpServers.files.tools.prototype)'],
      [JSON.parse('{"mcpServers":{"files":{"command":"a","env":{"__proto__":"x"}}}}'), 'a key named "__proto__" (at mcpServers.files.env.__proto__)'],
      [JSON.parse('{"__proto__":{"model":"x"}}'), 'a key named "__proto__" (at __proto__)'],
    ];
    // A complete config too (as a recorded one is), which the quick check would otherwise vouch for.
    cases.push([{ ...parseConfig({}, 'c'), toolTimeouts: { constructor: 5 } }, 'a key named "constructor" (at toolTimeouts.constructor)']);
    for (const [value, named] of cases) {
      const error = invalidOption(() => parseConfig(value, 'agentctl.config.json'));
      expect(error.message).toBe(`agentctl.config.json: ${named}: no config can have one`);
    }
    // Nesting deeper than any config does not overflow the walk: the schema refuses the value.
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(invalidOption(() => parseConfig({ tools: deep }, 'c')).message).toContain("field 'tools");
  });

  it('a partial nested object keeps the defaults of its other fields', () => {
    const config = parseConfig({ limits: { maxSteps: 5 }, guardrails: { haltNudges: 1 } }, 'config');
    expect(config.limits).toEqual({
      maxSteps: 5, timeoutMs: 0, tokenBudget: 0, costLimit: 0, maxRetries: 3, requestTimeoutMs: 180_000, streamIdleTimeoutMs: 60_000,
    });
    expect(config.guardrails.haltNudges).toBe(1);
    expect(config.guardrails.failureHalt).toBe(8);
  });

  it.each([
    [{ limits: { maxSteps: 0 } }, "field 'limits.maxSteps'"],
    [{ limits: { maxSteps: 2.5 } }, "field 'limits.maxSteps'"],
    [{ model: 5 }, "field 'model'"],
    [{ model: '' }, "field 'model'"],
    [{ context: { strategy: 'forget_everything' } }, "field 'context.strategy'"],
    [{ guardrails: { reserveCostFraction: 2 } }, "field 'guardrails.reserveCostFraction'"],
    [{ tools: 'read_file' }, "field 'tools'"],
    [{ prices: { 'my-model': { input: -1, output: 1 } } }, "field 'prices.my-model.input'"],
    [{ toolTimeouts: { exec_shell: 0 } }, "field 'toolTimeouts.exec_shell'"],
    [[], "field '(root)'"],
  ])('a bad field is an InvalidOptionError (exit 2) naming the field: %j', (value, named) => {
    const error = invalidOption(() => parseConfig(value, 'agentctl.config.json'));
    expect(error.message).toContain('agentctl.config.json: ');
    expect(error.message).toContain(named);
    expect(error.exitCode).toBe(2);
  });

  it('an unknown field is refused by name, at the top and nested', () => {
    expect(invalidOption(() => parseConfig({ modle: 'x' }, 'c.json')).message).toBe("c.json: unknown field 'modle'");
    expect(invalidOption(() => parseConfig({ limits: { maxStep: 3 } }, 'c.json')).message).toBe("c.json: unknown field 'limits.maxStep'");
    expect(invalidOption(() => parseConfig({ prices: { m: { input: 1, output: 1, cached: 1 } } }, 'c.json')).message).toBe(
      "c.json: unknown field 'prices.m.cached'",
    );
  });
});

describe('loadConfigFile', () => {
  it('reads and validates a JSON file', async () => {
    const file = await tempFile('agentctl.config.json', JSON.stringify({ model: 'gpt-4.1', limits: { maxSteps: 7 } }));
    const config = await loadConfigFile(file, true);
    expect(config.model).toBe('gpt-4.1');
    expect(config.limits.maxSteps).toBe(7);
  });

  it('a missing default file means all defaults; a missing file that was asked for is not found (exit 10)', async () => {
    const missing = join(tmpdir(), 'agentctl-no-such-dir', 'agentctl.config.json');
    await expect(loadConfigFile(missing, false)).resolves.toEqual(parseConfig({}, 'x'));
    const error = await loadConfigFile(missing, true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).exitCode).toBe(10);
    expect((error as Error).message).toContain(missing);
  });

  it('bad JSON and bad fields are usage errors naming the file', async () => {
    const broken = await tempFile('broken.json', '{ "model": ');
    await expect(loadConfigFile(broken, true)).rejects.toThrow(InvalidOptionError);
    await expect(loadConfigFile(broken, true)).rejects.toThrow(`${broken}: not valid JSON`);
    const bad = await tempFile('bad.json', JSON.stringify({ limits: { timeoutMs: -1 } }));
    await expect(loadConfigFile(bad, true)).rejects.toThrow(`${bad}: field 'limits.timeoutMs'`);
  });
});

describe('applyOverrides (--set key=value)', () => {
  const base = parseConfig({}, 'config');

  it('sets nested numbers, booleans, arrays and objects, read as JSON', () => {
    const config = applyOverrides(base, [
      'guardrails.maxRepeatedToolSteps=5',
      'stream=true',
      'tools=["read_file","list_dir"]',
      'prices.my-model={"input":1,"output":2}',
      'toolTimeouts.exec_shell=5000',
      'temperature=0.5',
      'limits.costLimit=0.25',
    ]);
    expect(config.guardrails.maxRepeatedToolSteps).toBe(5);
    expect(config.stream).toBe(true);
    expect(config.tools).toEqual(['read_file', 'list_dir']);
    expect(config.prices).toEqual({ 'my-model': { input: 1, output: 2 } });
    expect(config.toolTimeouts).toEqual({ exec_shell: 5000 });
    expect(config.temperature).toBe(0.5);
    expect(config.limits.costLimit).toBe(0.25);
  });

  it('string keys take the text as written (also when it looks like JSON); a quoted JSON string is unquoted', () => {
    const config = applyOverrides(base, ['model=gpt-4o', 'systemPrompt=a=b c', 'context.strategy=compact']);
    expect(config.model).toBe('gpt-4o');
    expect(config.systemPrompt).toBe('a=b c');
    expect(config.context.strategy).toBe('compact');
    expect(applyOverrides(base, ['model=4']).model).toBe('4');
    expect(applyOverrides(base, ['systemPrompt=null']).systemPrompt).toBe('null');
    expect(applyOverrides(base, ['systemPrompt=']).systemPrompt).toBe('');
    expect(applyOverrides(base, ['model="llama3:8b"']).model).toBe('llama3:8b');
  });

  it('later overrides win, and the input config is not changed', () => {
    const before = structuredClone(base);
    const config = applyOverrides(base, ['limits.maxSteps=3', 'limits.maxSteps=9']);
    expect(config.limits.maxSteps).toBe(9);
    expect(base).toEqual(before);
  });

  it.each([
    ['maxSteps', "--set expects key=value, got 'maxSteps'"],
    ['=5', "--set expects key=value, got '=5'"],
    ['limits..maxSteps=3', "--set: bad key 'limits..maxSteps'"],
    ['__proto__.polluted=1', "--set: bad key '__proto__.polluted'"],
    ['guardrails.constructor=1', "--set: bad key 'guardrails.constructor'"],
  ])('bad syntax is an InvalidOptionError: %s', (override, message) => {
    expect(invalidOption(() => applyOverrides(base, [override])).message).toBe(message);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([
    ['nope=1', "--set: unknown field 'nope'"],
    ['limits.nope=1', "--set: unknown field 'limits.nope'"],
    ['nope.deeper=1', "--set: unknown key 'nope.deeper'"],
    ['model.name=x', "--set: unknown key 'model.name'"],
    ['guardrails.maxRepeatedToolSteps.x=1', "--set: unknown key 'guardrails.maxRepeatedToolSteps.x'"],
  ])('an unknown key is an InvalidOptionError naming it: %s', (override, message) => {
    expect(invalidOption(() => applyOverrides(base, [override])).message).toBe(message);
  });

  it.each([
    ['limits.maxSteps=-1', "--set: field 'limits.maxSteps'"],
    ['limits.maxSteps=lots', "--set: field 'limits.maxSteps'"],
    ['stream=yes', "--set: field 'stream'"],
    ['tools=[1]', "--set: field 'tools.0'"],
    ['context.strategy=forget', "--set: field 'context.strategy'"],
  ])('a bad value is an InvalidOptionError naming the field: %s', (override, message) => {
    expect(invalidOption(() => applyOverrides(base, [override])).message).toContain(message);
  });
});

describe('redact patterns and the sandbox in the config', () => {
  it('refuses a pattern that is not a regular expression, as a usage error naming the field', () => {
    expect(() => parseConfig({ redact: ['ok-[0-9]+', '('] }, 'config')).toThrow(/field 'redact\.1': not a valid regular expression: \(/);
    expect(() => applyOverrides(parseConfig({}, 'config'), ['redact=["("]'])).toThrow(InvalidOptionError);
  });

  it('confines exec_shell by default, network off; "none" and network true are the ways out', () => {
    expect(parseConfig({}, 'config').sandbox).toEqual({ network: false });
    expect(parseConfig({ sandbox: 'none' }, 'config').sandbox).toBe('none');
    expect(applyOverrides(parseConfig({}, 'config'), ['sandbox.network=true']).sandbox).toEqual({ network: true });
    expect(() => parseConfig({ sandbox: 'docker' }, 'config')).toThrow(InvalidOptionError);
  });
});
