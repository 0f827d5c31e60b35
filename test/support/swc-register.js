/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS require hook, loaded with `node -r` */
/* global require, __dirname, process */
/*
 * Loads TypeScript in a child process (a worker under test) with the project's .swcrc, like @swc/jest does.
 * Each compiled file is kept in the temporary directory, under the hash of its path and text (in a folder named
 * by the swc version and its options): the many processes a test run starts from source (workers, API processes,
 * scripts) compile the app's 400-odd files once instead of each time. A changed file has another hash, so it is
 * compiled again; a cache that cannot be read or written is only skipped.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '.swcrc'), 'utf8'));
delete swcrc.$schema;
const options = { ...swcrc, swcrc: false, sourceMaps: 'inline' };

const sha1 = (text) => crypto.createHash('sha1').update(text).digest('hex');
const swcVersion = require('@swc/core/package.json').version;
const cacheDir = path.join(os.tmpdir(), `swc-register-${sha1(`${swcVersion}\0${JSON.stringify(options)}`).slice(0, 16)}`);

function compiled(source, filename) {
  const cached = path.join(cacheDir, `${sha1(`${filename}\0${source}`)}.js`);
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    /* not compiled yet */
  }
  const { code } = transformSync(source, { ...options, filename });
  try {
    // written beside it, then renamed: a process reading it at the same time sees the whole file or none
    fs.mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, cached);
  } catch {
    /* no cache: compiled again next time */
  }
  return code;
}

require.extensions['.ts'] = function compile(module, filename) {
  module._compile(compiled(fs.readFileSync(filename, 'utf8'), filename), filename);
};
