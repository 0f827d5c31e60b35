import { getQueueToken } from '@nestjs/bullmq';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';

import { ORCHESTRATOR_DATA_SOURCE } from '../../src/database/data-source-name';
import { RUNS_QUEUE } from '../../src/runs/run.job';
import { RunStore } from '../../src/runs/store/run-store';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

/**
 * A burst of submissions (BullMQ): the runs accepted while one is being written share the next statement, and
 * their jobs the next `addBulk` (group commit) — fewer round trips than jobs, and every job its own run, its own
 * session and its result.
 */
describe('a burst of POST /v1/jobs', () => {
  const svc = useService('jobs_burst', { env: { ...SCRIPTED_LLM, LLM_CACHE: 'false' }, model: { resetEach: true }, redis: true });

  it('shares inserts and queue adds, and every job completes in a session of its own', async () => {
    svc.model.setResponder((req) => ({ content: `echo: ${String(req.messages.at(-1)?.content)}` }));
    const db = svc.app.get<DataSource>(getDataSourceToken(ORCHESTRATOR_DATA_SOURCE));
    const queue = svc.app.get<Queue>(getQueueToken(RUNS_QUEUE));
    const n = 40;
    // the first insert is slow (a busy database): it is held until every submission has reached the store, so the
    // ones that arrive meanwhile wait for the next statement — on a loaded machine as on an idle one
    const runs = svc.app.get(RunStore);
    const submitted = jest.spyOn(runs, 'createInNewSession');
    const original = db.query.bind(db);
    let slowed = false;
    const query = jest.spyOn(db, 'query').mockImplementation(async (sql: string, params?: Parameters<DataSource['query']>[1]) => {
      if (!slowed && sql.includes('INSERT INTO runs') && sql.includes('unnest')) {
        slowed = true;
        await waitFor(async () => submitted.mock.calls.length >= n || undefined, 20_000);
      }
      return original(sql, params);
    });
    const addBulk = jest.spyOn(queue, 'addBulk');

    // text that an array literal must escape ({ } , " \\ NULL), and more: each message must come back as sent
    const message = (i: number) => `hello ${i} {"a": [1, 2]}, "quoted" \\ back\\slash NULL 'single' ü 日本\nline ${'}'.repeat(i % 3)}`;
    const accepted = await Promise.all(
      Array.from({ length: n }, (_, i) => svc.http('POST', '/v1/jobs', { message: message(i), metadata: { i, tag: `t"${i}\\` } })),
    );
    expect(accepted.map((r) => r.status)).toEqual(Array(n).fill(202));

    const inserts = query.mock.calls.filter(([sql]) => String(sql).includes('INSERT INTO runs') && String(sql).includes('unnest'));
    expect(inserts.reduce((sum, [, params]) => sum + (params as unknown[][])[0].length, 0)).toBe(n);
    expect(inserts.length).toBe(2); // the held one, then every submission that waited for it
    expect(addBulk.mock.calls.reduce((sum, [jobs]) => sum + jobs.length, 0)).toBe(n);
    expect(addBulk.mock.calls.length).toBeLessThan(n / 2);
    expect(new Set(accepted.map((r) => r.body.session_id)).size).toBe(n);

    const done = await Promise.all(
      accepted.map((a) =>
        waitFor(async () => {
          const job = await svc.http('GET', `/v1/jobs/${a.body.job_id}`);
          return job.body.status === 'completed' ? job.body : undefined;
        }, 30_000),
      ),
    );
    done.forEach((job, i) => {
      expect(job.session_id).toBe(accepted[i].body.session_id);
      expect(job.result.response).toBe(`echo: ${message(i)}`);
    });
  });
});
