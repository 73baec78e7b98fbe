// Emscripten's ES-module output still calls require() and reads __dirname when it runs under Node;
// ES modules have neither, so they are provided here (this file is placed before the module).
// In browsers and workers nothing happens.
var require, __dirname;
if (typeof process === 'object' && process.versions && process.versions.node) {
  const nodeModule = await import('node:module');
  const nodeUrl = await import('node:url');
  const nodePath = await import('node:path');
  require = nodeModule.createRequire(import.meta.url);
  __dirname = nodePath.dirname(nodeUrl.fileURLToPath(import.meta.url));
}
