/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload, loaded with `node -r` */
/* global require, process, setInterval */
/**
 * Bench-only: `node -r ./bench/support/count-queries.js dist/main.js` counts the SQL statements the process sends
 * (each `Client.query` is one round trip), by statement text. `QUERY_COUNT_FILE` receives a JSON snapshot
 * `{ total, byStatement }` every 100 ms while it changes (no signal: the app's own handlers stop it on those);
 * the bench diffs two snapshots taken around its turns.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const pg = require('pg');

const counts = new Map();
let total = 0;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(config, ...rest) {
  const text = typeof config === 'string' ? config : (config && config.text) || '?';
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 140);
  counts.set(key, (counts.get(key) || 0) + 1);
  total++;
  return original.call(this, config, ...rest);
};

function dump() {
  if (!process.env.QUERY_COUNT_FILE) return;
  writeFileSync(process.env.QUERY_COUNT_FILE, JSON.stringify({ total, byStatement: Object.fromEntries(counts) }));
}
let written = -1;
setInterval(() => {
  if (written === total) return;
  written = total;
  dump();
}, 100).unref();
