/**
 * Tools as the loop runs them: real built-ins confined to a temp workspace, exec_shell with a
 * short per-tool time limit (config `toolTimeouts`), a custom tool module that throws, and calls
 * that must never run. Whatever goes wrong is a tool message the model reads; the run goes on.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/agent/load-config.js';
import { prepareRun } from '../src/library/run-agent.js';
import { shellUnavailable, usableTools } from '../src/agent/shell-check.js';
import { BWRAP_MISSING } from '../src/tools/index.js';
import { BASH_MISSING } from '../src/tools/launcher.js';
import { InvalidOptionError } from '../src/core/errors.js';
import { decisions, ofType, toolMessages, useLoopHarness } from './support/loop-harness.js';
import { BWRAP_WITHOUT_NAMESPACES, programsDir } from './support/shell-programs.js';

let binParent: string;
beforeAll(async () => {
  binParent = await mkdtemp(join(tmpdir(), 'agentctl-bin-'));
});
afterAll(async () => {
  await rm(binParent, { recursive: true, force: true });
});

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

  it('a live run goes without exec_shell where bwrap is missing, and says why; sandbox "none" or no exec_shell needs no bwrap', async () => {
    const place = { workspace: await harness.workspace(), hidden: [] };
    const noBwrap = { PATH: await programsDir(binParent, { real: ['bash'] }) };
    const asked = parseConfig({ toolTimeouts: { exec_shell: 5000, read_file: 1000 } }, 'config');
    const used = await usableTools(asked, place, noBwrap);
    expect(used.toolsLeftOut).toEqual([{ name: 'exec_shell', reason: BWRAP_MISSING }]);
    expect(used.config.tools).toEqual(asked.tools.filter((tool) => tool !== 'exec_shell'));
    // Its time limit goes with it: a limit for a tool that is not enabled is refused as a typo.
    expect(used.config.toolTimeouts).toEqual({ read_file: 1000 });
    expect({ ...used.config, tools: asked.tools, toolTimeouts: asked.toolTimeouts }).toEqual(asked);
    await expect(shellUnavailable(parseConfig({ sandbox: 'none' }, 'config'), place, noBwrap)).resolves.toBeUndefined();
    await expect(shellUnavailable(parseConfig({ tools: ['read_file'] }, 'config'), place, noBwrap)).resolves.toBeUndefined();
    await expect(usableTools(asked, place)).resolves.toEqual({ config: asked, toolsLeftOut: [] }); // bwrap and bash are installed here
  });

  it('a live run goes without exec_shell where bwrap cannot set the sandbox up (no user namespaces), with bwrap’s reason', async () => {
    const place = { workspace: await harness.workspace(), hidden: [] };
    const brokenBwrap = { PATH: await programsDir(binParent, { real: ['bash'], scripts: { bwrap: BWRAP_WITHOUT_NAMESPACES } }) };
    const reason = await shellUnavailable(parseConfig({}, 'config'), place, brokenBwrap);
    expect(reason).toMatch(/^the sandbox could not start \(bwrap: No permissions to create new namespace, .*\); see "sandbox" in the agentctl docs/);
    expect(reason).toMatch(/or set "sandbox": "none" to run commands unconfined$/);
  });

  it('a live run goes without exec_shell where bash, which starts every command, is missing: sandboxed or not', async () => {
    const place = { workspace: await harness.workspace(), hidden: [] };
    const noBash = { PATH: await programsDir(binParent, { real: ['bwrap'] }) };
    for (const config of [parseConfig({}, 'config'), parseConfig({ sandbox: 'none' }, 'config')]) {
      await expect(shellUnavailable(config, place, noBash)).resolves.toBe(BASH_MISSING);
    }
    await expect(shellUnavailable(parseConfig({ tools: ['read_file'] }, 'config'), place, { PATH: '/nonexistent' })).resolves.toBeUndefined();
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
