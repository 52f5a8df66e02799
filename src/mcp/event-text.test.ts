import { describe, expect, it } from 'vitest';
import { namesMcpTool } from './event-text.js';

describe('namesMcpTool', () => {
  it("a tool's own name, agentctl's <server>__<tool>, and names an agent made with the server's name last before the tool's", () => {
    for (const name of ['read_file', 'files__read_file', 'mcp__files__read_file', 'files_read_file', 'files-read_file', 'files.read_file']) {
      expect(namesMcpTool(name, 'read_file', 'files'), name).toBe(true);
    }
    // The tool's odd characters written as `_`, as agents write them for a model.
    expect(namesMcpTool('fs_read_file', 'read.file', 'fs')).toBe(true);
    expect(namesMcpTool('fs_read.file', 'read.file', 'fs')).toBe(true);
  });

  it('not another server, a name that only contains the tool, nor one without a separator', () => {
    for (const name of ['docs_read_file', 'xfiles_read_file', 'filesread_file', 'read_file_files_x', 'files_read_filex', 'files_', '_read_file', 'read_file_']) {
      expect(namesMcpTool(name, 'read_file', 'files'), name).toBe(false);
    }
    expect(namesMcpTool('get_a_abc', 'get', 'a')).toBe(false);
  });
});
