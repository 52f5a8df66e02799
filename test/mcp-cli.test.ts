/**
 * `agentctl mcp -- <server>` end to end: the real binary as the `command` of the official SDK's
 * StdioClientTransport, wrapping the real memory server; recorded onto a tape file, then replayed
 * with the server's script gone, the same answers; a destructive call not on the tape refused with
 * -32001; a strict replay's divergence reported and exit 7. And its flags.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-mcp-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BASE_ENV = { AGENTCTL_MCP_LINK: undefined, AGENTCTL_MODE: undefined, AGENTCTL_STORE: undefined };
const mcp = (args: string[], env: Record<string, string | undefined> = {}) => runCli(['mcp', ...args], { env: { ...BASE_ENV, ...env } });

describe('agentctl mcp: its flags', () => {
  it('each bad combination is one agentctl: line and exit 2, nothing on standard output (the MCP channel)', async () => {
    const cases: Array<[string[], string]> = [
      [['--record', 'a.tape.jsonl'], 'agentctl: no MCP server to run: give its command after --'],
      [['--', 'node', 'server.js'], 'agentctl: say what to do with the tape: --record <name|file>, --replay <run|file> or --tape <name|file>'],
      [['--record', 'a.tape.jsonl', '--replay', 'b.tape.jsonl', '--', 'node'], 'agentctl: --record and --replay do not go together'],
      [['--record', 'a.tape.jsonl', '--mode', 'replay', '--', 'node'], 'agentctl: --mode goes with --tape, not --record'],
      [['--record', 'a.tape.jsonl', '--no-strict', '--', 'node'], 'agentctl: --strict/--no-strict apply to a replay, not record mode'],
      [['--name', 'has space', '--record', 'a.tape.jsonl', '--', 'node'], 'agentctl: --name "has space": a server name is 1-48 of A-Z a-z 0-9 _ -'],
    ];
    for (const [args, line] of cases) {
      const result = await mcp(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr.split('\n')[0], args.join(' ')).toBe(line);
    }
  });

  it('--help lists its flags and says standard output is the MCP channel', async () => {
    const result = await mcp(['--help']);
    expect(result.code).toBe(0);
    for (const flag of ['--name <server>', '--record <name|file>', '--replay <run|file>', '--tape <name|file>', '--mode <mode>', '--no-strict', '--allow-side-effects', '--redact <regex>']) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain('Standard output is the MCP channel');
    expect(result.stdout).toContain('AGENTCTL_MCP_LINK');
  });

  it('with AGENTCTL_MCP_LINK set, no tape flag is needed: it joins that run (here, none is there)', async () => {
    const result = await mcp(['--', process.execPath, '-e', ''], { AGENTCTL_MCP_LINK: 'http://127.0.0.1:9/agentctl/mcp/' + '0'.repeat(32) });
    expect(result.code).toBe(12);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^agentctl: cannot reach the run's MCP link \(\$AGENTCTL_MCP_LINK, http:\/\/127\.0\.0\.1:9\): /);
  });
});
