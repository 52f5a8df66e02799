// Preloaded with `node --require` (CommonJS, so it loads no ES module and no built-in itself): at
// exit, says on stderr
//   - whether the program loaded any ES module: `ESM-LOADER used` or `ESM-LOADER unused`. Node
//     creates a module job (its internal module `internal/modules/esm/module_job`) for every ES
//     module it loads, and never for a program made only of CommonJS files;
//   - which of Node's public built-in modules it loaded, one `BUILTIN-LOADED <name>` line each
//     (trace-bundle-chunks.mjs reports them too, but as an ES module it loads `stream` itself).
process.on('exit', () => {
  const loaded = [...process.moduleLoadList];
  const lines = [`ESM-LOADER ${loaded.includes('NativeModule internal/modules/esm/module_job') ? 'used' : 'unused'}`];
  for (const entry of loaded) {
    const name = /^NativeModule (?!internal\/)(\S+)$/.exec(entry)?.[1];
    if (name !== undefined) lines.push(`BUILTIN-LOADED ${name}`);
  }
  process.stderr.write(`${lines.join('\n')}\n`);
});
