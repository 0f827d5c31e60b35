/**
 * `npm run bench:footprint` (not in CI; after `npm run build`): the memory of the shipped start command,
 * `node dist/main.js`, from /proc — RSS once it listens, its peak (VmHWM) and RSS after 20 chats and 15 s idle —
 * for the zero-setup start (embedded Postgres, first start and restart on the same DATA_DIR) and on the local Postgres.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createTestDatabase } from '../test/support/infra';
import { freePort } from '../test/support/main-process';
import { waitFor } from '../test/support/test-app';
import { post } from './lib';

const REPO = path.resolve(__dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function mb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return Math.round(kb / 1024);
}

async function measure(label: string, env: Record<string, string>) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '/usr/bin', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  await waitFor(async () => ((await fetch(`${url}/health/live`).catch(() => undefined))?.ok ? true : undefined), 120_000, 100);
  const listenS = (Date.now() - started) / 1000;
  const atListen = mb(child.pid!, 'VmRSS');
  for (let i = 0; i < 20; i++) await post(url, '/v1/chat', { message: `(12 + ${i}) * 4` });
  await sleep(15_000);
  const row = {
    label,
    listen_s: listenS.toFixed(1),
    rss_listen: atListen,
    rss_idle: mb(child.pid!, 'VmRSS'),
    peak: mb(child.pid!, 'VmHWM'),
  };
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return row;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'footprint-'));
  const db = await createTestDatabase('footprint');
  try {
    const rows = [
      await measure('embedded Postgres, first start', { DATA_DIR: dataDir }),
      await measure('embedded Postgres, restart', { DATA_DIR: dataDir }),
      await measure('local Postgres (DATABASE_URL)', { DATABASE_URL: db.url }),
    ];
    console.log('| start | listens after | RSS at listen | RSS idle after 20 chats | peak RSS |');
    console.log('|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.label} | ${r.listen_s} s | ${r.rss_listen} MB | ${r.rss_idle} MB | ${r.peak} MB |`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  }
}

void main();
