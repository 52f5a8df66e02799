import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { demoEvents } from './test-support/demo-events.js';
import { emptyModel, addEvents } from './state/run-model.js';
import { stepText } from './state/step-text.js';
import { CLIPBOARD_MAX_BYTES, osc52, stepFileName, stepOutput } from './step-output.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-step-output-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const decoded = (sequence: string): string => {
  const match = /^\u001b\]52;c;([A-Za-z0-9+/=]*)\u0007$/.exec(sequence);
  if (match === null) throw new Error(`not an OSC 52 sequence: ${JSON.stringify(sequence)}`);
  return Buffer.from(match[1] ?? '', 'base64').toString('utf8');
};

describe('a step\'s text', () => {
  it('is the detail expanded, without colour codes, with control characters as escapes', async () => {
    const events = await demoEvents();
    // A tool output with an escape sequence in it, as a hostile tape could hold.
    const hostile: RunEvent[] = events.map((e) => (e.type === 'tool_result' && e.step === 1 ? { ...e, output: `\u001b]52;c;ZXZpbA==\u0007${e.output}` } : e));
    const model = addEvents(emptyModel({ mode: 'viewing', runId: '01DEMO' }), hostile);
    const text = stepText(model.rows[1]!, false);
    expect(text.startsWith('Step 1\n')).toBe(true);
    expect(text).not.toContain('Enter expands');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('\\u001b]52;c;ZXZpbA==\\u0007');
  });
});

describe('the clipboard (OSC 52)', () => {
  it('writes the text, base64 in one sequence, and refuses a text too long for it', () => {
    const written: string[] = [];
    const output = stepOutput({ write: (data) => written.push(data) }, dir);
    expect(output.copy('Step 3\n✗ block\n', 3)).toMatch(/^copied step 3 to the clipboard/);
    expect(written.map(decoded)).toEqual(['Step 3\n✗ block\n']);
    expect(osc52('a')).toBe('\u001b]52;c;YQ==\u0007');
    expect(output.copy('x'.repeat(CLIPBOARD_MAX_BYTES + 1), 4)).toMatch(/too long for the clipboard: w writes it to a file$/);
    expect(written).toHaveLength(1);
  });
});

describe('the step file', () => {
  it('is named from the run and the step only, whatever the run id holds', () => {
    expect(stepFileName('01M8F0P5A4', 3)).toBe('agentctl-step-01M8F0P5A4-3.txt');
    expect(stepFileName('../../etc/passwd', 3, 2)).toBe('agentctl-step-______etc_passwd-3-2.txt');
    expect(stepFileName('', 0)).toBe('agentctl-step-run-0.txt');
  });

  it('is written in its directory and never overwrites: a taken name (a file, a link) gets -2, -3', async () => {
    const output = stepOutput({ write: () => undefined }, dir, '.');
    expect(await output.write('first\n', '01RUN', 3)).toBe('wrote step 3 to ./agentctl-step-01RUN-3.txt');
    await symlink(join(dir, 'elsewhere.txt'), join(dir, 'agentctl-step-01RUN-3-2.txt'));
    expect(await output.write('second\n', '01RUN', 3)).toBe('wrote step 3 to ./agentctl-step-01RUN-3-3.txt');
    expect(await readFile(join(dir, 'agentctl-step-01RUN-3.txt'), 'utf8')).toBe('first\n');
    expect(await readFile(join(dir, 'agentctl-step-01RUN-3-3.txt'), 'utf8')).toBe('second\n');
    expect((await readdir(dir)).sort()).toEqual(['agentctl-step-01RUN-3-2.txt', 'agentctl-step-01RUN-3-3.txt', 'agentctl-step-01RUN-3.txt']);
  });

  it('says why it could not be written', async () => {
    await writeFile(join(dir, 'not-a-dir'), '');
    const output = stepOutput({ write: () => undefined }, join(dir, 'not-a-dir'), 'there');
    expect(await output.write('text', '01RUN', 1)).toMatch(/^cannot write there\/agentctl-step-01RUN-1\.txt: ENOTDIR/);
  });
});
