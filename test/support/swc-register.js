/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS require hook, loaded with `node -r` */
/* global require, __dirname */
/* Loads TypeScript in a child process (a worker under test) with the project's .swcrc, like @swc/jest does. */
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '.swcrc'), 'utf8'));
delete swcrc.$schema;

require.extensions['.ts'] = function compile(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, { ...swcrc, filename, swcrc: false, sourceMaps: 'inline' });
  module._compile(code, filename);
};
