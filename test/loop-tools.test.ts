/**
 * Tools as the loop runs them: real built-ins confined to a temp workspace, exec_shell with a
 * short per-tool time limit (config `toolTimeouts`), a custom tool module that throws, and calls
 * that must never run. Whatever goes wrong is a tool message the model reads; the run goes on.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/agent/load-config.js';
import { prepareRun } from '../src/library/run-agent.js';
import { checkSandbox } from '../src/agent/tool-registry.js';
import { findProgram } from '../src/tools/index.js';
import { InvalidOptionError } from '../src/core/errors.js';
import { decisions, ofType, toolMessages, useLoopHarness } from './support/loop-harness.js';

const binDirs: string[] = [];
afterAll(async () => {
  for (const dir of binDirs) await rm(dir, { recursive: true, force: true });
});

/** A directory holding only `program` (a link to the one on PATH), to use as a PATH without the others. */
async function binWith(program: string): Promise<string> {
  const found = await findProgram(program, process.env['PATH']);
  if (found === undefined) throw new Error(`${program} is not installed on this machine; these tests need it`);
  const bin = await mkdtemp(join(tmpdir(), 'agentctl-bin-'));
  binDirs.push(bin);
  await symlink(found, join(bin, program));
  return bin;
}

const harness = useLoopHarness();

describe('workspace confinement in the loop', () => {
  it('../outside and an absolute path are refused as tool errors the model sees; nothing outside is read or written', async () => {
    const run = await harness.run('workspace-escape', {
      prepare: (ws) => writeFile(join(dirname(ws), 'outside.txt'), 'TOP SECRET\n'),
    });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });

    const results = ofType(run.events, 'tool_result');
    expect(results.map((r) => [r.tool, r.status])).toEqual([
      ['read_file', 'error'],
      ['read_file', 'error'],
      ['write_file', 'error'],
    ]);
    expect(results[0]?.output).toBe("path '../outside.txt' is outside the workspace; only paths inside the workspace are allowed");
    expect(results[1]?.output).toBe("path '/etc/passwd' is outside the workspace; only paths inside the workspace are allowed");
    expect(results[2]?.output).toContain("path '../escaped.txt' is outside the workspace");

    const seen = toolMessages(run.bodies[1]);
    expect([...seen.values()]).toEqual(results.map((r) => r.output));
    const wire = JSON.stringify(run.bodies);
    expect(wire).not.toContain('TOP SECRET');
    expect(wire).not.toContain('root:');
    expect(existsSync(join(dirname(run.workspace), 'escaped.txt'))).toBe(false);
    run.server.assertConsumed();
  });
});

describe('the exec_shell sandbox in the loop', () => {
  const probe = [
    { tool_calls: [{ name: 'exec_shell', arguments: { command: 'pwd; cat /etc/passwd | wc -l; echo hi > made.txt' } }] },
    { content: 'Looked around.' },
  ];

  it('runs commands in bubblewrap by default: the model sees /workspace, never the host path, and the run_start records the sandbox', async () => {
    const run = await harness.run(probe);
    const [result] = ofType(run.events, 'tool_result');
    expect(result).toMatchObject({ tool: 'exec_shell', status: 'ok' });
    expect(result?.output).toMatch(/^\/workspace\n[12]\n\[exit code: 0\]$/);
    expect(JSON.stringify(run.bodies)).not.toContain(run.workspace);
    expect(await readFile(join(run.workspace, 'made.txt'), 'utf8')).toBe('hi\n');
    expect(ofType(run.events, 'run_start')[0]?.config['sandbox']).toEqual({ network: false });
    run.server.assertConsumed();
  });

  it('with "sandbox": "none", runs them unconfined in the workspace, and the run_start says so', async () => {
    const run = await harness.run(probe, { config: { sandbox: 'none' } });
    const [result] = ofType(run.events, 'tool_result');
    expect(result?.output.split('\n')[0]).toBe(run.workspace);
    expect(ofType(run.events, 'run_start')[0]?.config['sandbox']).toBe('none');
    run.server.assertConsumed();
  });

  it('checkSandbox refuses a live run up front when exec_shell would be sandboxed and bwrap is missing', async () => {
    const noBwrap = { PATH: await binWith('bash') };
    const attempt = checkSandbox(parseConfig({}, 'config'), noBwrap);
    await expect(attempt).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(attempt).rejects.toThrow('exec_shell runs commands in a bubblewrap sandbox, and bwrap is not installed');
    await expect(attempt).rejects.toMatchObject({ hint: expect.stringContaining('apt-get install bubblewrap') as string });
    await expect(checkSandbox(parseConfig({ sandbox: 'none' }, 'config'), noBwrap)).resolves.toBeUndefined();
    await expect(checkSandbox(parseConfig({ tools: ['read_file'] }, 'config'), noBwrap)).resolves.toBeUndefined();
    await expect(checkSandbox(parseConfig({}, 'config'))).resolves.toBeUndefined(); // bwrap and bash are installed here
  });

  it('checkSandbox refuses a live run up front when bash, which starts every command, is missing: sandboxed or not', async () => {
    const noBash = { PATH: await binWith('bwrap') };
    for (const config of [parseConfig({}, 'config'), parseConfig({ sandbox: 'none' }, 'config')]) {
      const attempt = checkSandbox(config, noBash);
      await expect(attempt).rejects.toBeInstanceOf(InvalidOptionError);
      await expect(attempt).rejects.toThrow('exec_shell starts commands through bash, and bash is not on PATH');
      await expect(attempt).rejects.toMatchObject({ hint: expect.stringContaining('apt-get install bash') as string });
    }
    await expect(checkSandbox(parseConfig({ tools: ['read_file'] }, 'config'), { PATH: '/nonexistent' })).resolves.toBeUndefined();
  });
});

describe('tool time limits', () => {
  it('exec_shell over its toolTimeouts limit is stopped and reported as a timeout; the run goes on', async () => {
    const run = await harness.run('tool-timeout', { config: { toolTimeouts: { exec_shell: 300 } } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });

    const [result] = ofType(run.events, 'tool_result');
    expect(result).toMatchObject({ tool: 'exec_shell', status: 'timeout' });
    expect(result?.output).toBe("tool 'exec_shell' timed out after 300 ms and was stopped");
    expect(result?.output).not.toContain('woke');
    expect(toolMessages(run.bodies[1]).get('call_0_0')).toBe(result?.output);
    // A timeout counts as a failure of the tool (no warning yet at 1).
    expect(decisions(run.events, 'failures')).toEqual([
      expect.objectContaining({ tool: 'exec_shell', verdict: 'continue', counters: { before: { failures: 0 }, after: { failures: 1 } } }),
    ]);
    // The effective limit is part of the recorded config.
    expect(ofType(run.events, 'run_start')[0]?.config['toolTimeouts']).toEqual({ exec_shell: 300 });
    run.server.assertConsumed();
  });

  it('toolTimeouts naming a tool that is not enabled is an invalid option before any model call', async () => {
    const ws = await harness.workspace();
    const attempt = prepareRun({ task: 't', workspace: ws, config: { tools: ['read_file'], toolTimeouts: { exec_shell: 1000 } } });
    await expect(attempt).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(attempt).rejects.toThrow("config 'toolTimeouts' names 'exec_shell', not an enabled tool");
  });
});

describe('custom tools in the loop', () => {
  it('a custom tool that throws is a tool error; the run continues and the next call succeeds', async () => {
    const run = await harness.run('custom-tool-throws', { config: { toolModules: ['tools/send-email.mjs'] } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(run.bodies[0]?.tools?.map((t) => t.function.name)).toContain('send_email');

    const results = ofType(run.events, 'tool_result');
    expect(results.map((r) => [r.tool, r.status, r.output])).toEqual([
      ['send_email', 'error', 'invalid recipient: nobody'],
      ['send_email', 'ok', 'email sent to lead@example.com'],
    ]);
    expect(toolMessages(run.bodies[1]).get('call_0_0')).toBe('invalid recipient: nobody');
    const outbox = await readFile(join(run.workspace, 'outbox.jsonl'), 'utf8');
    expect(outbox.trim().split('\n')).toHaveLength(1);
    run.server.assertConsumed();
  });
});

describe('calls that must not run', () => {
  it('arguments that are not JSON and an unknown tool come back as tool messages without running', async () => {
    const run = await harness.run('bad-calls');
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });

    const results = ofType(run.events, 'tool_result');
    expect(results.map((r) => [r.tool, r.status])).toEqual([
      ['read_file', 'error'],
      ['delete_everything', 'denied'],
    ]);
    expect(results[0]?.output).toMatch(/^arguments are not valid JSON: /);
    expect(results[1]?.output).toBe('Not run: there is no tool named `delete_everything`. Use one of the tools you were given.');
    expect(decisions(run.events, 'arguments', 'call_0_0')).toEqual([expect.objectContaining({ verdict: 'block', rule: 'invalid_json' })]);
    expect(decisions(run.events, 'policy', 'call_0_1')).toEqual([expect.objectContaining({ verdict: 'block', rule: 'unknown_tool' })]);
    const seen = toolMessages(run.bodies[1]);
    expect(seen.get('call_0_0')).toBe(results[0]?.output);
    expect(seen.get('call_0_1')).toBe(results[1]?.output);
    run.server.assertConsumed();
  });
});
