/**
 * Streamable HTTP MCP servers through the real binary: `agentctl mcp --url` as a local endpoint the
 * official SDK's StreamableHTTPClientTransport talks to, and `agentctl run --mcp-url` giving a
 * command the endpoint in AGENTCTL_MCP_URL_<NAME>; each recorded against server-everything, then
 * replayed with the server stopped: the same answers, and the client's Authorization on no tape.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp, type EverythingHttp } from '../src/mcp/test-support/everything-http.js';
import { BIN, runCli } from './support/cli.js';

let dir: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-mcp-http-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BASE_ENV = { AGENTCTL_MCP_LINK: undefined, AGENTCTL_MODE: undefined, AGENTCTL_STORE: undefined, AGENTCTL_CACHE: 'off' };
const SECRET = 'Bearer agentctl-test-secret-token';

async function everything(): Promise<EverythingHttp> {
  const started = await startEverythingHttp();
  cleanups.push(() => started.stop());
  return started;
}

/** `agentctl mcp …args` started; resolves once it says where it listens. */
async function startMcp(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const [key, value] of Object.entries(BASE_ENV)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (text: string) => {
      stderr += text;
      const found = /^agentctl mcp: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr);
      if (found !== null) resolve(found[1] as string);
    });
    child.once('exit', () => reject(new Error(`agentctl mcp exited: ${stderr}`)));
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
  return { child, url, stderr: () => stderr };
}

/** Stop it as a user does (SIGINT), and wait for its exit code. */
async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.kill(signal);
  const [code] = await exited;
  return code;
}

/** What an agent does with server-everything: its tools, an echo, a sum, a call with progress. */
async function useEverything(url: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: SECRET } } });
  const client = new Client({ name: 'agentctl-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    const progress: unknown[] = [];
    const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 2 } }, undefined, { onprogress: (p) => progress.push(p) });
    await transport.terminateSession();
    return { tools, echo, sum, long, progress };
  } finally {
    await client.close();
  }
}

const tapeLines = async (tape: string): Promise<Array<Record<string, unknown>>> =>
  (await readFile(tape, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('agentctl mcp --url', () => {
  it('records a streamable HTTP server through its endpoint, and replays it with the server stopped', async () => {
    const server = await everything();
    const tape = join(dir, 'everything.tape.jsonl');
    const recording = await startMcp(['--name', 'everything', '--record', tape, '--url', server.url]);
    const recorded = await useEverything(recording.url);
    expect(recorded.echo).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
    expect(recorded.progress).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
    expect(await stop(recording.child)).toBe(0);
    expect(recording.stderr()).toContain(`agentctl mcp: 3 MCP tool calls recorded (${tape})`);
    const lines = await tapeLines(tape);
    expect(lines.filter((e) => e['type'] === 'tool_call').map((e) => [e['tool'], e['server']])).toEqual([
      ['echo', 'everything'],
      ['get-sum', 'everything'],
      ['trigger-long-running-operation', 'everything'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('agentctl-test-secret-token');

    await server.stop();
    const replaying = await startMcp(['--name', 'everything', '--replay', tape, '--url', server.url]);
    expect(await useEverything(replaying.url)).toEqual(recorded);
    expect(await stop(replaying.child, 'SIGTERM')).toBe(0);
    expect(replaying.stderr()).toContain('served 3 of 3 recorded MCP tool calls');
  });

  it('on SIGINT with a call under way, ends the session and writes the call as the client got it: no answer', async () => {
    const server = await everything();
    const tape = join(dir, 'cut.tape.jsonl');
    const recording = await startMcp(['--name', 'everything', '--record', tape, '--url', server.url]);
    const client = new Client({ name: 'agentctl-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(recording.url)));
    let progressed: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (progressed = resolve));
    const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 600, steps: 600 } }, undefined, { onprogress: () => progressed() });
    call.catch(() => undefined);
    await first;
    expect(await stop(recording.child)).toBe(0);
    await client.close();
    const lines = await tapeLines(tape);
    expect(lines.find((e) => e['type'] === 'tool_result')).toMatchObject({
      tool: 'trigger-long-running-operation',
      server: 'everything',
      status: 'error',
      output: "agentctl: the client went away before MCP server 'everything' answered",
    });
  });

  it('refuses a request from a web page (an Origin not of this machine) with 403', async () => {
    const tape = join(dir, 'origin.tape.jsonl');
    const { child, url } = await startMcp(['--record', tape, '--url', 'http://127.0.0.1:9/mcp']);
    const answer = await fetch(url, { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(403);
    expect(await stop(child)).toBe(0);
  });

  it('each bad use of --url is one agentctl: line and exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['--record', 'a.tape.jsonl', '--url', 'ftp://example.com/mcp'], 'agentctl: MCP server URL must be http or https, not ftp: ftp://example.com/mcp'],
      [['--record', 'a.tape.jsonl', '--url', 'http://example.com/mcp', '--', 'node'], 'agentctl: --url and a command after -- do not go together: the server is reached by its URL'],
      [['--record', 'a.tape.jsonl', '--url', 'http://example.com/mcp', '--port', 'x'], 'agentctl: --port "x": a port is a number from 0 to 65535'],
      [['--record', 'a.tape.jsonl', '--port', '1234', '--', 'node'], 'agentctl: --port and --host go with --url'],
    ];
    for (const [args, line] of cases) {
      const result = await runCli(['mcp', ...args], { env: BASE_ENV });
      expect(result.stderr.split('\n')[0], args.join(' ')).toBe(line);
      expect(result.code, args.join(' ')).toBe(2);
    }
  });
});

const SDK = createRequire(import.meta.url);

/** A program that uses the server at $AGENTCTL_MCP_URL_EVERYTHING as useEverything does, and prints what it got. */
async function agentScript(): Promise<string> {
  const file = join(dir, 'agent.mjs');
  const client = pathToFileURL(SDK.resolve('@modelcontextprotocol/sdk/client/index.js')).href;
  const transport = pathToFileURL(SDK.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js')).href;
  await writeFile(
    file,
    `import { Client } from ${JSON.stringify(client)};
import { StreamableHTTPClientTransport } from ${JSON.stringify(transport)};
const transport = new StreamableHTTPClientTransport(new URL(process.env.AGENTCTL_MCP_URL_EVERYTHING), { requestInit: { headers: { Authorization: ${JSON.stringify(SECRET)} } } });
const client = new Client({ name: 'agent', version: '1.0.0' });
await client.connect(transport);
const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
const progress = [];
const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 2 } }, undefined, { onprogress: (p) => progress.push(p) });
await transport.terminateSession();
await client.close();
console.log(JSON.stringify({ url: process.env.AGENTCTL_MCP_URL_EVERYTHING.replace(/:\\d+\\//, ':PORT/'), echo, long, progress }));
`,
  );
  return file;
}

describe('agentctl run --mcp-url', () => {
  it('gives the command the server on the run proxy, records its traffic on the run tape, and replays it with the server stopped', async () => {
    const server = await everything();
    const script = await agentScript();
    const tape = join(dir, 'run.tape.jsonl');
    const recorded = await runCli(['run', '--record', tape, '--mcp-url', `everything=${server.url}`, '--', process.execPath, script], { env: BASE_ENV });
    expect(recorded.stderr).toContain('2 MCP tool calls recorded');
    expect(recorded.code).toBe(0);
    const output = JSON.parse(recorded.stdout) as { url: string };
    expect(output.url).toBe('http://127.0.0.1:PORT/mcp/everything');
    const lines = await tapeLines(tape);
    expect(lines.filter((e) => e['type'] === 'tool_call').map((e) => e['tool'])).toEqual(['echo', 'trigger-long-running-operation']);
    expect(JSON.stringify(lines)).not.toContain('agentctl-test-secret-token');

    await server.stop();
    const replayed = await runCli(['run', '--replay', tape, '--mcp-url', `everything=${server.url}`, '--', process.execPath, script], { env: BASE_ENV });
    expect(replayed.stderr).toContain('served 2 of 2 recorded MCP tool calls');
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout)).toEqual(output);
  });

  it('a session the command leaves open ends with the run: a call under way written as unanswered', async () => {
    const server = await everything();
    const file = join(dir, 'leaves.mjs');
    await writeFile(
      file,
      `import { Client } from ${JSON.stringify(pathToFileURL(SDK.resolve('@modelcontextprotocol/sdk/client/index.js')).href)};
import { StreamableHTTPClientTransport } from ${JSON.stringify(pathToFileURL(SDK.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js')).href)};
const client = new Client({ name: 'agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.AGENTCTL_MCP_URL_EVERYTHING)));
await new Promise((resolve) => {
  client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 600, steps: 600 } }, undefined, { onprogress: resolve }).catch(() => undefined);
});
process.exit(0);
`,
    );
    const tape = join(dir, 'leaves.tape.jsonl');
    const result = await runCli(['run', '--record', tape, '--mcp-url', `everything=${server.url}`, '--', process.execPath, file], { env: BASE_ENV });
    expect(result.code).toBe(0);
    const lines = await tapeLines(tape);
    expect(lines.find((e) => e['type'] === 'tool_result')).toMatchObject({
      tool: 'trigger-long-running-operation',
      status: 'error',
      output: "agentctl: the client went away before MCP server 'everything' answered",
    });
  });

  it('--help of both commands names the flags', async () => {
    const mcp = await runCli(['mcp', '--help'], { env: BASE_ENV });
    for (const flag of ['--url <url>', '--port <n>', '--host <address>']) expect(mcp.stdout).toContain(flag);
    const run = await runCli(['run', '--help'], { env: BASE_ENV });
    expect(run.stdout).toContain('--mcp-url <name=url>');
    expect(run.stdout).toContain('$AGENTCTL_MCP_URL_<NAME>');
  });

  it('each bad --mcp-url is one agentctl: line and exit 2', async () => {
    const cases: Array<[string, string]> = [
      ['nourl', 'agentctl: --mcp-url: give <name>=<url>, the name 1-48 of A-Z a-z 0-9 _ -'],
      ['a b=http://x/mcp', 'agentctl: --mcp-url: give <name>=<url>, the name 1-48 of A-Z a-z 0-9 _ -'],
      ['docs=ftp://x/mcp', 'agentctl: --mcp-url docs: MCP server URL must be http or https, not ftp: ftp://x/mcp'],
    ];
    for (const [value, line] of cases) {
      const result = await runCli(['run', '--record', join(dir, 'x.tape.jsonl'), '--mcp-url', value, '--', process.execPath, '-e', ''], { env: BASE_ENV });
      expect(result.stderr.split('\n')[0], value).toBe(line);
      expect(result.code, value).toBe(2);
    }
    const twice = await runCli(['run', '--record', join(dir, 'x.tape.jsonl'), '--mcp-url', 'a=http://x/mcp', '--mcp-url', 'a=http://y/mcp', '--', process.execPath, '-e', ''], { env: BASE_ENV });
    expect(twice.stderr.split('\n')[0]).toBe('agentctl: --mcp-url a: given twice');
    expect(twice.code).toBe(2);
  });
});
