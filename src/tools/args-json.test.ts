import { describe, expect, it } from 'vitest';
import { builtinArgsJson, type BuiltinArgsName } from './args-json.js';
import { argsSchema as editFile, editFileTool } from './edit-file.js';
import { argsSchema as execShell, execShellTool } from './exec-shell.js';
import { argsSchema as grepFiles, grepFilesTool } from './grep-files.js';
import { argsSchema as listDir, listDirTool } from './list-dir.js';
import { argsSchema as readFile, readFileTool } from './read-file.js';
import { argsJsonSchema } from './tool-args.js';
import type { Tool } from './tool.js';
import { argsSchema as writeFile, writeFileTool } from './write-file.js';

const TOOLS: Array<[BuiltinArgsName, Parameters<typeof argsJsonSchema>[0], () => Tool]> = [
  ['read_file', readFile, () => readFileTool()],
  ['write_file', writeFile, () => writeFileTool()],
  ['edit_file', editFile, () => editFileTool()],
  ['list_dir', listDir, () => listDirTool()],
  ['grep_files', grepFiles, () => grepFilesTool()],
  ['exec_shell', execShell, () => execShellTool()],
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
