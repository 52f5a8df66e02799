import { describe, expect, it } from 'vitest';
import { failureWarnMessage } from './messages.js';
import { withoutWarning } from './tool-call-pipeline.js';

describe('withoutWarning', () => {
  it('takes back exactly the failure warning the pipeline appended, and nothing else', () => {
    const warning = failureWarnMessage('read_file', 3);
    expect(withoutWarning(`'a.txt' does not exist\n\n${warning}`, 'read_file', 3)).toBe("'a.txt' does not exist");
    expect(withoutWarning(warning, 'read_file', 3)).toBe('');
    // Another count or tool: not the warning this result got, so the output is left alone.
    expect(withoutWarning(`x\n\n${warning}`, 'read_file', 4)).toBe(`x\n\n${warning}`);
    expect(withoutWarning(`x\n\n${warning}`, 'list_dir', 3)).toBe(`x\n\n${warning}`);
    expect(withoutWarning('plain output', 'read_file', 3)).toBe('plain output');
  });
});
