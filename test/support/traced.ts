/**
 * Run Node with a loader trace preloaded (`node --import <trace> ...args`, or `--require` for a
 * `.cjs` trace, which loads no ES module itself) to completion: the trace reports on stderr what the
 * program loads (trace-package-imports.mjs, trace-bundle-chunks.mjs, trace-loads.cjs), so a
 * start-up test can prove what a command never loads.
 */
import { spawn } from 'node:child_process';
import type { CliResult } from './cli.js';

/** `env`: set on top of this process's environment (and `NO_COLOR`); by default `CI=1`. */
export function traced(trace: string, args: string[], env: Record<string, string> = { CI: '1' }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [trace.endsWith('.cjs') ? '--require' : '--import', trace, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
