import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createTestDatabase, type TestDatabase } from '../support/infra';
import { freePort } from '../support/main-process';
import { memoryAfterGc } from '../support/memory-stats';
import { ScriptedModelServer } from '../support/model-server';
import { WorkerProcess } from '../support/worker-process';

/** Long answers (120 KB each): a turn whose events or context stay reachable then shows in the heap at once. */
const ANSWER = 'The weather stays mild all week. '.repeat(3800);
const N = 60;

/**
 * The API as `main.ts` starts it (no Redis: the in-process queue and run event bus), `--expose-gc` and
 * MEMORY_STATS_FILE: the heap after a forced GC after N turns and after 2N turns, each a new session with a
 * calculator call and a long answer. Before the fix every ended run's event window and async context (logger,
 * run observation) stayed reachable for RUN_EVENTS_TTL_S (an hour): N more turns then added over 7 MB.
 */
describe('memory: N more turns leave the heap where it was', () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase;
  let api: WorkerProcess;
  let dir: string;

  beforeAll(async () => {
    await model.start();
    model.setResponder((req) => {
      model.requests.length = 0;
      const last = req.messages[req.messages.length - 1];
      if (last?.role === 'tool') return { content: `${String(last.content).slice(0, 20)} — ${ANSWER}` };
      return { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] };
    });
    db = await createTestDatabase('memory_retention');
    dir = mkdtempSync(path.join(tmpdir(), 'memory-'));
    const port = await freePort();
    api = await WorkerProcess.startApi({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'm',
      LLM_MAX_RETRIES: '0',
      LLM_CACHE: 'false',
      MEMORY_STATS_FILE: path.join(dir, 'memory.jsonl'),
      NODE_OPTIONS: '--expose-gc',
    });
  }, 60_000);

  afterAll(async () => {
    await api?.stop();
    await model.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`grows the heap by less than 4 MB from ${N} to ${2 * N} turns`, async () => {
    const base = `http://127.0.0.1:${/listening on http:\/\/[\d.]+:(\d+)/.exec(api.logs)![1]}`;
    let turns = 0;
    const turnsUpTo = (upTo: number) =>
      Promise.all(
        [0, 1].map(async () => {
          while (turns < upTo) {
            turns++;
            const res = await fetch(`${base}/v1/chat`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ message: `what is 6*7? (${turns})` }),
            });
            const body = (await res.json()) as { response?: string };
            expect(res.status).toBe(200);
            expect(body.response).toContain('mild all week');
          }
        }),
      );
    const file = path.join(dir, 'memory.jsonl');
    await turnsUpTo(N);
    const first = await memoryAfterGc(api.pid, file);
    await turnsUpTo(2 * N);
    const second = await memoryAfterGc(api.pid, file);
    process.stderr.write(`heap after GC: ${first.heapMb} MB after ${N} turns, ${second.heapMb} MB after ${2 * N}\n`);
    expect(second.heapMb - first.heapMb).toBeLessThan(4);
  }, 90_000);
});
