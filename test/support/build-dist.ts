/**
 * Vitest global setup: the end-to-end tests spawn bin/agentctl.js, which runs dist/ (the CLI bundle
 * in dist/cli-bundle/, made from tsc's output). Build dist/ as `npm run build` does first when any
 * source file is newer than the last build, so `npx vitest run` never tests stale output (`npm test`
 * builds before it, and then this finds nothing to do).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.built');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
  if (built >= newestSource(join(ROOT, 'src'))) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.mjs')], { stdio: 'inherit' });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
