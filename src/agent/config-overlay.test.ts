import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../core/errors.js';
import { mergeConfig, overlayConfig } from './config-overlay.js';
import { parseConfig } from './load-config.js';

const recorded = parseConfig({
  model: 'recorded-model',
  systemPrompt: 'Recorded prompt.',
  tools: ['read_file', 'list_dir'],
  guardrails: { identicalCallBlock: 4, failureWarn: 5 },
  toolTimeouts: { read_file: 1000 },
  sandbox: 'none',
}, 'recorded');

describe('a config file laid over a recorded config', () => {
  it('takes the fields the file sets, and every other field as recorded, not as defaults', async () => {
    const config = await overlayConfig(recorded, { guardrails: { identicalCallBlock: 2 } }, 'cfg.json');
    expect(config).toEqual({ ...recorded, guardrails: { ...recorded.guardrails, identicalCallBlock: 2 } });
    expect(config.systemPrompt).toBe('Recorded prompt.');
    expect(config.guardrails.failureWarn).toBe(5);
  });

  it('merges objects key by key, and replaces arrays and other values whole', async () => {
    const config = await overlayConfig(recorded, { tools: ['read_file'], toolTimeouts: { list_dir: 5 }, sandbox: { network: true } }, 'cfg.json');
    expect(config.tools).toEqual(['read_file']);
    expect(config.toolTimeouts).toEqual({ read_file: 1000, list_dir: 5 });
    expect(config.sandbox).toEqual({ network: true });
  });

  it("replaces the recorded mcpServers whole: a tape's servers (their env redacted) never slip in beside the file's", async () => {
    const withServers = parseConfig({ ...recorded, mcpServers: { tape: { command: 'tape-server', env: { TOKEN: '[REDACTED]' } }, files: { command: 'old', env: { A: '[REDACTED]' } } } }, 'recorded');
    const config = await overlayConfig(withServers, { mcpServers: { files: { command: 'mine', args: ['x'] } } }, 'cfg.json');
    expect(config.mcpServers).toEqual({ files: { command: 'mine', args: ['x'] } });
    expect((await overlayConfig(withServers, { seed: 3 }, 'cfg.json')).mcpServers).toEqual(withServers.mcpServers);
  });

  it('validates the result as any config: a bad field is the usage error of a bad config', async () => {
    await expect(overlayConfig(recorded, { guardrails: { identicalCallBlock: 0 } } as never, 'cfg.json')).rejects.toThrow(InvalidOptionError);
    await expect(overlayConfig(recorded, { guardrails: { nope: 1 } } as never, 'cfg.json')).rejects.toThrow(/cfg\.json: unknown field 'guardrails\.nope'/);
  });

  it('keeps a key named __proto__ a key, for validation to refuse, never the prototype', async () => {
    const overlay = JSON.parse('{"__proto__": {"polluted": true}, "guardrails": {"__proto__": {"x": 1}}}') as unknown;
    const merged = mergeConfig(recorded, overlay) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expect(overlayConfig(recorded, overlay as never, 'cfg.json')).rejects.toThrow(InvalidOptionError);
  });
});
