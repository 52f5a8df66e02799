import { describe, expect, it } from 'vitest';
import { builtinArgsJson, type BuiltinArgsName } from './args-json.js';
import { ARG_SCHEMAS, argsJsonSchema } from './arg-schemas.js';
import { editFileTool } from './edit-file.js';
import { execShellTool } from './exec-shell.js';
import { grepFilesTool } from './grep-files.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import type { Tool } from './tool.js';
import { writeFileTool } from './write-file.js';

const TOOLS: Array<[BuiltinArgsName, Parameters<typeof argsJsonSchema>[0], () => Tool]> = [
  ['read_file', ARG_SCHEMAS.read_file, () => readFileTool()],
  ['write_file', ARG_SCHEMAS.write_file, () => writeFileTool()],
  ['edit_file', ARG_SCHEMAS.edit_file, () => editFileTool()],
  ['list_dir', ARG_SCHEMAS.list_dir, () => listDirTool()],
  ['grep_files', ARG_SCHEMAS.grep_files, () => grepFilesTool()],
  ['exec_shell', ARG_SCHEMAS.exec_shell, () => execShellTool()],
];

describe('the written-out JSON Schema of the built-in tools', () => {
  it.each(TOOLS)('%s: exactly what zod makes of its argument schema, key order included', (name, schema, tool) => {
    const fromZod = JSON.stringify(argsJsonSchema(schema));
    expect(JSON.stringify(builtinArgsJson(name))).toBe(fromZod);
    expect(JSON.stringify(tool().parameters)).toBe(fromZod);
  });

  it('gives each caller its own copy', () => {
    const a = builtinArgsJson('read_file');
    a.type = 'changed';
    expect(builtinArgsJson('read_file').type).toBe('object');
  });
});
