// Preloaded with `node --require` (CommonJS, so it loads no ES module itself): at exit, says on
// stderr whether the program loaded any ES module. Node creates a module job (its internal module
// `internal/modules/esm/module_job`) for every ES module it loads, and never for a program made only
// of CommonJS files. One line: `ESM-LOADER used` or `ESM-LOADER unused`.
process.on('exit', () => {
  const used = process.moduleLoadList.includes('NativeModule internal/modules/esm/module_job');
  process.stderr.write(`ESM-LOADER ${used ? 'used' : 'unused'}\n`);
});
