/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload, loaded with `node -r` */
/* global require, process */
/**
 * Bench-only: `node -r ./bench/support/count-promises.js …` counts the promises the process creates after
 * PROMISES_AFTER_S seconds (default 0: start-up and warm-up left out by a later start), and samples what created them
 * (one in PROMISES_EVERY, default 25: the first frame of the stack outside Node's internals). Each promise costs
 * every enabled AsyncLocalStorage's hook, an allocation and a microtask, so the count is a deterministic measure of
 * that cost. Writes to PROMISES_OUT (default /tmp/promises.txt) at exit or SIGTERM: the total, then the sampled
 * creators by package and by frame. Divide by the turns the window held.
 */
'use strict';
const { createHook } = require('node:async_hooks');
const { writeFileSync } = require('node:fs');

const after = Date.now() + Number(process.env.PROMISES_AFTER_S ?? 0) * 1000;
const every = Number(process.env.PROMISES_EVERY ?? 25);
let promises = 0;
const byPackage = new Map();
const byFrame = new Map();

function creator() {
  const lines = new Error().stack.split('\n').slice(3);
  const first = lines.find((l) => !/node:|count-promises|<anonymous>/.test(l)) ?? '(internal)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(first)?.[1] ?? (/\/dist\//.test(first) ? 'service' : 'other');
  return [
    pkg,
    first
      .trim()
      .replace(/^at /, '')
      .replace(/\(\/.*node_modules\//, '(')
      .replace(/\(\/.*?\/dist\//, '(dist/'),
  ];
}

const limit = Error.stackTraceLimit;
createHook({
  init(_id, type) {
    if (type !== 'PROMISE' || Date.now() < after) return;
    if (++promises % every) return;
    Error.stackTraceLimit = 40;
    const [pkg, frame] = creator();
    Error.stackTraceLimit = limit;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + every);
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + every);
  },
}).enable();

function report() {
  const rows = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${String(v).padStart(9)} ${k}`);
  const text = [
    `promises ${promises}`,
    '-- by package creating (sampled)',
    ...rows(byPackage, 20),
    '-- by frame creating (sampled)',
    ...rows(byFrame, 40),
  ];
  writeFileSync(process.env.PROMISES_OUT ?? '/tmp/promises.txt', `${text.join('\n')}\n`);
}
process.on('exit', report);
process.once('SIGTERM', report); // the process's own handlers shut it down; `exit` writes the final count
