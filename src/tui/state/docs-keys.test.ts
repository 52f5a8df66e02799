import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERDICT_GLYPHS } from '../../core/verdict-glyphs.js';
import { KEY_BINDINGS } from './keymap.js';

const doc = readFileSync(new URL('../../../docs/tui.md', import.meta.url), 'utf8');

describe('docs/tui.md', () => {
  it('documents every key of the key table and every verdict glyph', () => {
    const keys = doc.slice(doc.indexOf('## Keys'));
    for (const binding of KEY_BINDINGS) for (const key of binding.label.split(' ')) expect(keys, `key ${key}`).toContain(`\`${key}\``);
    for (const [verdict, glyph] of Object.entries(VERDICT_GLYPHS)) expect(doc, verdict).toContain(`| \`${glyph}\` | ${verdict} `);
  });
});
