import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { executeTool } from './executor.js';
import { OUTPUT_CAP_BYTES } from './output-cap.js';
import { ToolRegistry } from './registry.js';
import { ToolError, type Tool } from './tool.js';

/** A test tool with the given behaviour. */
function tool(name: string, run: Tool['run'], timeoutMs = 1000): Tool {
  return { name, description: name, parameters: { type: 'object' }, idempotent: true, mutating: false, timeoutMs, run };
}

const options = { workspace: '/nonexistent-workspace' };

describe('executeTool', () => {
  it('returns ok with the output and the duration from the injected clock', async () => {
    const clock = new ManualClock(1000);
    const registry = new ToolRegistry().register(
      tool('echo', (args) => {
        clock.advance(42);
        return Promise.resolve(`said ${String(args.text)}`);
      }),
    );
    await expect(executeTool(registry, 'echo', { text: 'hi' }, { ...options, clock })).resolves.toEqual({
      status: 'ok',
      output: 'said hi',
      durationMs: 42,
    });
  });

  it('passes the workspace and a live signal to the tool', async () => {
    const registry = new ToolRegistry().register(
      tool('ctx', (_args, ctx) => Promise.resolve(`${ctx.workspace} ${ctx.signal.aborted}`)),
    );
    await expect(executeTool(registry, 'ctx', {}, options)).resolves.toMatchObject({ output: '/nonexistent-workspace false' });
  });

  it('turns a thrown error into status error with the message the model sees', async () => {
    const registry = new ToolRegistry()
      .register(tool('tool_error', () => Promise.reject(new ToolError('file not found'))))
      .register(tool('plain_error', () => Promise.reject(new Error('boom'))))
      .register(tool('bug', () => Promise.reject(new TypeError('x is undefined'))))
      .register(tool('sync_throw', () => {
        throw new Error('thrown synchronously');
      }))
      .register(tool('non_error', () => Promise.reject('a string')));
    const outcome = async (name: string): Promise<unknown> => {
      const result = await executeTool(registry, name, {}, options);
      return [result.status, result.output];
    };
    await expect(outcome('tool_error')).resolves.toEqual(['error', 'file not found']);
    await expect(outcome('plain_error')).resolves.toEqual(['error', 'boom']);
    await expect(outcome('bug')).resolves.toEqual(['error', 'TypeError: x is undefined']);
    await expect(outcome('sync_throw')).resolves.toEqual(['error', 'thrown synchronously']);
    await expect(outcome('non_error')).resolves.toEqual(['error', 'a string']);
  });

  it('reports an unknown tool and non-object arguments as errors', async () => {
    const registry = new ToolRegistry().register(tool('known', () => Promise.resolve('')));
    await expect(executeTool(registry, 'nope', {}, options)).resolves.toMatchObject({
      status: 'error',
      output: "unknown tool 'nope'; available tools: known",
    });
    const notAnObject = [1, 2] as unknown as Record<string, unknown>;
    await expect(executeTool(registry, 'known', notAnObject, options)).resolves.toMatchObject({ status: 'error' });
  });

  it('times out a tool that ignores its signal, and aborts the signal', async () => {
    let seenSignal: AbortSignal | undefined;
    const registry = new ToolRegistry().register(
      tool('hang', (_args, ctx) => {
        seenSignal = ctx.signal;
        return new Promise<string>(() => {});
      }, 50),
    );
    const result = await executeTool(registry, 'hang', {}, options);
    expect(result).toMatchObject({ status: 'timeout', output: "tool 'hang' timed out after 50 ms and was stopped" });
    expect(seenSignal?.aborted).toBe(true);
  });

  it('lets the call override the spec time limit', async () => {
    const registry = new ToolRegistry().register(
      tool('wait', (_args, ctx) => new Promise((resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error));
        setTimeout(() => resolve('done'), 100);
      }), 10),
    );
    await expect(executeTool(registry, 'wait', {}, { ...options, timeoutMs: 5000 })).resolves.toMatchObject({ status: 'ok' });
  });

  it('ends as a cancellation error when the caller aborts, or before running if already aborted', async () => {
    let ran = false;
    const registry = new ToolRegistry().register(
      tool('slow', (_args, ctx) => {
        ran = true;
        return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)));
      }, 10_000),
    );
    const cancel = new AbortController();
    const pending = executeTool(registry, 'slow', {}, { ...options, signal: cancel.signal });
    cancel.abort();
    await expect(pending).resolves.toMatchObject({ status: 'error', output: "tool 'slow' was cancelled" });
    ran = false;
    await expect(executeTool(registry, 'slow', {}, { ...options, signal: cancel.signal })).resolves.toMatchObject({
      status: 'error',
    });
    expect(ran).toBe(false);
  });

  it('caps the output of every tool, ok or error', async () => {
    const big = 'x'.repeat(OUTPUT_CAP_BYTES * 2);
    const registry = new ToolRegistry()
      .register(tool('loud', () => Promise.resolve(big)))
      .register(tool('loud_fail', () => Promise.reject(new ToolError(big))));
    for (const name of ['loud', 'loud_fail']) {
      const { output } = await executeTool(registry, name, {}, options);
      expect(Buffer.byteLength(output)).toBeLessThanOrEqual(OUTPUT_CAP_BYTES + 100);
      expect(output).toContain('[output truncated');
    }
  });

  it('turns non-string results into text', async () => {
    const registry = new ToolRegistry()
      .register(tool('obj', () => Promise.resolve({ a: 1 } as unknown as string)))
      .register(tool('nothing', () => Promise.resolve(undefined as unknown as string)));
    await expect(executeTool(registry, 'obj', {}, options)).resolves.toMatchObject({ status: 'ok', output: '{"a":1}' });
    await expect(executeTool(registry, 'nothing', {}, options)).resolves.toMatchObject({ status: 'ok', output: '' });
  });
});

describe('executeTool error text', () => {
  it('shows paths inside the workspace relative to it, never the workspace’s absolute path', async () => {
    const workspace = '/tmp/agentctl-ws-abc123';
    const registry = new ToolRegistry()
      .register(tool('leaky', () => Promise.reject(new Error(`EIO: i/o error, open '${workspace}/src/a.ts' in ${workspace}`))))
      .register(tool('sibling', () => Promise.reject(new Error(`see ${workspace}2/x and ${workspace}/`))));
    await expect(executeTool(registry, 'leaky', {}, { workspace })).resolves.toMatchObject({
      status: 'error',
      output: "EIO: i/o error, open 'src/a.ts' in .",
    });
    await expect(executeTool(registry, 'sibling', {}, { workspace })).resolves.toMatchObject({
      output: `see ${workspace}2/x and ./`,
    });
  });
});
