/**
 * A config's `mcpServers`: which entries the schema takes (and the error naming the field for the
 * rest), how a server's strings are expanded, which environment a stdio server gets (never
 * agentctl's secrets unless named), where it runs, and what the tape keeps of `env` and `headers`.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../agent/load-config.js';
import { InvalidOptionError } from '../core/errors.js';
import { configForTape } from '../core/event-redactor.js';
import { mcpServersForTape, planServers, type PlanContext } from './server-config.js';

const context: PlanContext = {
  workspace: '/work/space',
  configDir: '/home/me/project',
  env: { PATH: '/usr/bin', HOME: '/home/me', OPENAI_API_KEY: 'sk-secret', MY_TOKEN: 'tok-1', LANG: 'C.UTF-8' },
};

const servers = (mcpServers: unknown) => parseConfig({ mcpServers }, 'config').mcpServers;

describe('mcpServers in the config', () => {
  it('takes stdio and streamable HTTP servers as written, nothing filled in', () => {
    const written = {
      files: { command: 'node', args: ['server.js', '${AGENTCTL_WORKSPACE}'], env: { TOKEN: '${MY_TOKEN}' }, cwd: '.' },
      docs: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${MY_TOKEN}' } },
      mem: { type: 'stdio', command: 'npx', tools: { create_entities: { idempotent: true } }, timeoutMs: 5000 },
    };
    expect(servers(written)).toEqual(written);
    expect(parseConfig({}, 'config').mcpServers).toBeUndefined();
  });

  it.each([
    [{ files: { type: 'sse', url: 'https://x/sse' } }, "field 'mcpServers.files.type': the legacy SSE transport is not supported"],
    [{ files: {} }, "field 'mcpServers.files': needs either a \"command\" (a stdio server) or a \"url\" (a streamable HTTP server)"],
    [{ files: { command: 'a', url: 'https://x' } }, "field 'mcpServers.files': needs either"],
    [{ files: { type: 'http', command: 'a' } }, "field 'mcpServers.files.type': a server with a \"command\" is type \"stdio\", not \"http\""],
    [{ files: { type: 'stdio', url: 'https://x' } }, "field 'mcpServers.files.type': a server with a \"url\" is type \"http\""],
    [{ files: { url: 'https://x', env: { A: 'b' } } }, "field 'mcpServers.files.env': \"env\" is for a stdio server (\"command\")"],
    [{ files: { command: 'a', headers: { A: 'b' } } }, "field 'mcpServers.files.headers': \"headers\" is for a streamable HTTP server (\"url\")"],
    [{ 'my files': { command: 'a' } }, "field 'mcpServers.my files'"],
    [{ files: { command: 'a', extra: 1 } }, "unknown field 'mcpServers.files.extra'"],
    [{ files: { command: 'a', tools: { t: { readOnly: true } } } }, "unknown field 'mcpServers.files.tools.t.readOnly'"],
  ])('refuses %j naming the field', (value, message) => {
    expect(() => servers(value)).toThrow(InvalidOptionError);
    expect(() => servers(value)).toThrow(message);
  });
});

describe('planServers', () => {
  it('expands ${VAR} and ${AGENTCTL_WORKSPACE}, and resolves cwd from the config directory', () => {
    const [plan] = planServers({ files: { command: '${HOME}/bin/server', args: ['--root', '${AGENTCTL_WORKSPACE}/data', 'x${MY_TOKEN}y'], cwd: 'tools' } }, context);
    expect(plan).toMatchObject({ name: 'files', transport: 'stdio', command: '/home/me/bin/server', args: ['--root', '/work/space/data', 'xtok-1y'], cwd: '/home/me/project/tools', timeoutMs: 60_000 });
    expect(planServers({ files: { command: 'a' } }, context)[0]).toMatchObject({ cwd: '/home/me/project' });
  });

  it("gives a stdio server a small environment and the config's env, never agentctl's secrets unless named", () => {
    const [plain] = planServers({ files: { command: 'a' } }, context);
    expect(plain?.transport === 'stdio' && plain.env).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LANG: 'C.UTF-8' });
    const [named] = planServers({ files: { command: 'a', env: { OPENAI_API_KEY: '${OPENAI_API_KEY}', TOKEN: '${MY_TOKEN}', PATH: '/opt/bin' } } }, context);
    expect(named?.transport === 'stdio' && named.env).toEqual({ PATH: '/opt/bin', HOME: '/home/me', LANG: 'C.UTF-8', OPENAI_API_KEY: 'sk-secret', TOKEN: 'tok-1' });
  });

  it('expands a streamable HTTP server\'s url and headers', () => {
    const [plan] = planServers({ docs: { url: 'https://h/${MY_TOKEN}/mcp', headers: { Authorization: 'Bearer ${MY_TOKEN}' }, timeoutMs: 10 } }, context);
    expect(plan).toEqual({ name: 'docs', transport: 'http', url: 'https://h/tok-1/mcp', headers: { Authorization: 'Bearer tok-1' }, tools: {}, timeoutMs: 10 });
  });

  it('refuses a variable that is not set, naming the field', () => {
    expect(() => planServers({ files: { command: 'a', env: { TOKEN: '${NOT_SET_HERE}' } } }, context)).toThrow(
      "config 'mcpServers.files.env.TOKEN' uses ${NOT_SET_HERE}, which is not set in the environment",
    );
  });
});

describe('mcpServersForTape', () => {
  it('keeps the keys of env and headers and redacts their values, in run_start and run meta alike', () => {
    const config = { model: 'm', redact: [], mcpServers: { files: { command: 'a', env: { TOKEN: 'tok-1' } }, docs: { url: 'u', headers: { Authorization: 'Bearer x' } } } };
    const expected = { files: { command: 'a', env: { TOKEN: '[REDACTED]' } }, docs: { url: 'u', headers: { Authorization: '[REDACTED]' } } };
    expect(mcpServersForTape(config.mcpServers)).toEqual(expected);
    expect(configForTape(config)).toEqual({ model: 'm', redact: [], mcpServers: expected });
    expect(config.mcpServers.files.env.TOKEN).toBe('tok-1');
  });
});
