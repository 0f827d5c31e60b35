import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../src/database/data-source-name';
import { http, type RunningApp, startApp } from '../support/test-app';

const SLOW = { assistant_id: 'slow', input: { ms: 150 } };

/**
 * The zero-setup default (embedded Postgres, PGlite: one statement at a time, a transaction holds it alone): the
 * `reject` decision is the same transaction there, and must neither let two runs in nor stall the server.
 */
describe('multitask reject under concurrency (embedded Postgres)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agents-mt-embedded-'));
  let svc: RunningApp;
  const runRows = async (thread: string) =>
    (
      await svc.app
        .get<DataSource>(getDataSourceToken(ORCHESTRATOR_DATA_SOURCE))
        .query(`SELECT id FROM runs WHERE session_id = $1`, [thread])
    ).length;

  beforeAll(async () => {
    svc = await startApp({ DATA_DIR: dataDir, LANGGRAPH_CONFIG: join(__dirname, '..', 'fixtures', 'graphs', 'langgraph.runs.json') });
  }, 180_000);
  afterAll(async () => {
    await svc?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(['runs', 'runs/wait'])(
    'POST /threads/{id}/%s: 20 concurrent reject runs → one accepted, 19 × 409, one run row',
    async (route) => {
      const thread = (await http(svc.url, 'POST', '/threads', {})).body.thread_id as string;
      const answers = await Promise.all(Array.from({ length: 20 }, () => http(svc.url, 'POST', `/threads/${thread}/${route}`, SLOW)));
      const statuses = answers.map((a) => a.status);
      expect([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 409).length]).toEqual([1, 19]);
      expect(await runRows(thread)).toBe(1);
      const run = (await http(svc.url, 'GET', `/threads/${thread}/runs`)).body[0].run_id as string;
      expect((await http(svc.url, 'GET', `/threads/${thread}/runs/${run}/join`)).body).toMatchObject({ ticks: 10 });
    },
  );
});
