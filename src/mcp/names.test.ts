/** The name the model sees for an MCP tool: `<server>__<tool>`, the tool's other characters as `_`, at most 64 characters. */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../core/errors.js';
import { modelToolName } from './names.js';

describe('modelToolName', () => {
  it('joins server and tool with two underscores, every character the model may not see as _', () => {
    expect(modelToolName('files', 'read_file')).toBe('files__read_file');
    expect(modelToolName('docs', 'search.v2/all-of it')).toBe('docs__search_v2_all-of_it');
  });

  it('takes 64 characters and refuses 65, naming the server to rename', () => {
    expect(modelToolName('s', 't'.repeat(61))).toHaveLength(64);
    expect(() => modelToolName('s', 't'.repeat(62))).toThrow(InvalidOptionError);
    expect(() => modelToolName('s', 't'.repeat(62))).toThrow('longer than 64 characters');
  });
});
