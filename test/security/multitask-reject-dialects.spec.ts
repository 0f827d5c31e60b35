import { randomUUID } from 'node:crypto';
import path from 'node:path';

import { Client } from 'pg';

import { openSocket, type SocketClient } from '../support/protocol-socket';
import { SCRIPTED_LLM, type ServiceHandle, useService } from '../support/service-fixture';

const KEY = 'acme-key-multitask-0123456789';
const CONFIG = path.join(__dirname, '..', 'fixtures', 'graphs', 'langgraph.protocol.json');
const HEADERS = { 'x-api-key': KEY };
/** the fixture graph's `think` waits this long: the accepted run is still in flight while the others arrive */
const SLOW_INPUT = { messages: [{ role: 'user', content: 'hi' }], delay_ms: 1500 };
const N = 20;

type Res = { status: number; body: any };

async function call(base: string, method: string, p: string, body?: unknown): Promise<Res> {
  const headers = { ...HEADERS, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
  const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

/** the run rows of a thread (a v1 session), as the operator reads them: the effect, not the answers */
async function runRows(
  svc: ServiceHandle,
  thread: string,
): Promise<Array<{ id: string; status: string; started_at: Date | null; finished_at: Date | null }>> {
  const c = new Client({ connectionString: svc.db.url });
  await c.connect();
  try {
    return (await c.query('SELECT id, status, started_at, finished_at FROM runs WHERE session_id = $1 ORDER BY started_at', [thread])).rows;
  } finally {
    await c.end();
  }
}

const runStart = (_id: number) => ({ assistant_id: 'proto', input: SLOW_INPUT, multitaskStrategy: 'reject' });
/** a protocol answer: accepted (`success` with a run id) or refused (an `error` envelope naming the busy thread) */
const accepted = (e: any) => e?.type === 'success' && typeof e.result?.run_id === 'string';
const refusedAsBusy = (e: any) => e?.type === 'error' && e.error === 'invalid_argument' && /busy|reject/i.test(e.message);

/**
 * Multitask `reject`, 20 requests at once on one thread, in every dialect that starts runs: exactly one run is
 * accepted — counted in the database, not only in the answers — and the 19 others are refused in the dialect's
 * own words. The decision is the run service's, so a burst that mixes the dialects also gets exactly one.
 */
describe('multitask reject: 20 concurrent requests on one thread, in every dialect', () => {
  const svc = useService('mt_dialects', { model: true, env: { ...SCRIPTED_LLM, API_KEYS: `acme:${KEY}`, LANGGRAPH_CONFIG: CONFIG } });

  it('LangGraph API: POST /threads/{id}/runs with multitask_strategy reject → one 200, 19 × 409, one run row', async () => {
    const thread = (await call(svc.url, 'POST', '/threads', {})).body.thread_id as string;
    const body = { assistant_id: 'proto', input: SLOW_INPUT, multitask_strategy: 'reject' };
    const answers = await Promise.all(Array.from({ length: N }, () => call(svc.url, 'POST', `/threads/${thread}/runs`, body)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(N - 1).fill(409)]);
    const rows = await runRows(svc, thread);
    expect(rows.map((r) => r.id)).toEqual([answers.find((a) => a.status === 200)!.body.run_id]);
  });

  it('thread event protocol over HTTP: 20 run.start commands with multitaskStrategy reject → one success, one run row', async () => {
    const thread = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        call(svc.url, 'POST', `/threads/${thread}/commands`, { id: i + 1, method: 'run.start', params: runStart(i) }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const envelopes = answers.map((a) => a.body);
    expect(envelopes.filter(accepted)).toHaveLength(1);
    expect(envelopes.filter(refusedAsBusy)).toHaveLength(N - 1);
    expect((await runRows(svc, thread)).map((r) => r.id)).toEqual([envelopes.find(accepted).result.run_id]);
  });

  it('thread event protocol over WebSocket: 20 sockets, one run.start each → one success, one run row', async () => {
    const thread = randomUUID();
    const sockets: SocketClient[] = await Promise.all(Array.from({ length: N }, () => openSocket(svc.url, thread, { headers: HEADERS })));
    try {
      expect(sockets.every((s) => s.ws.readyState === 1)).toBe(true);
      const envelopes = await Promise.all(sockets.map((s, i) => s.command(i + 1, 'run.start', runStart(i))));
      expect(envelopes.filter(accepted)).toHaveLength(1);
      expect(envelopes.filter(refusedAsBusy)).toHaveLength(N - 1);
      expect((await runRows(svc, thread)).map((r) => r.id)).toEqual([envelopes.find(accepted).result.run_id]);
    } finally {
      for (const s of sockets) s.close();
    }
  });

  it('the three dialects at once on one thread (7 LangGraph API, 7 HTTP commands, 6 sockets) → one accepted in all', async () => {
    const thread = (await call(svc.url, 'POST', '/threads', {})).body.thread_id as string;
    const sockets = await Promise.all(Array.from({ length: 6 }, () => openSocket(svc.url, thread, { headers: HEADERS })));
    try {
      const lg = Array.from({ length: 7 }, () =>
        call(svc.url, 'POST', `/threads/${thread}/runs`, { assistant_id: 'proto', input: SLOW_INPUT, multitask_strategy: 'reject' }).then(
          (a) => a.status === 200,
        ),
      );
      const http = Array.from({ length: 7 }, (_, i) =>
        call(svc.url, 'POST', `/threads/${thread}/commands`, { id: i + 1, method: 'run.start', params: runStart(i) }).then((a) =>
          accepted(a.body),
        ),
      );
      const ws = sockets.map((s, i) => s.command(i + 1, 'run.start', runStart(i)).then(accepted));
      const wins = (await Promise.all([...lg, ...http, ...ws])).filter(Boolean);
      expect(wins).toHaveLength(1);
      expect(await runRows(svc, thread)).toHaveLength(1);
    } finally {
      for (const s of sockets) s.close();
    }
  });

  it('REST v1 has no multitask strategy (its contract is unchanged): 20 jobs on one session are all queued and run one at a time', async () => {
    svc.model.latencyMs = 100;
    const session = (await call(svc.url, 'POST', '/threads', {})).body.thread_id as string;
    const answers = await Promise.all(
      Array.from({ length: N }, () => call(svc.url, 'POST', '/v1/jobs', { message: 'hello', session_id: session })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array<number>(N).fill(202));
    const deadline = Date.now() + 60_000;
    let rows = await runRows(svc, session);
    while (rows.some((r) => r.status === 'queued' || r.status === 'running') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      rows = await runRows(svc, session);
    }
    expect(rows).toHaveLength(N);
    // never two at once: each run started after the one before it had finished
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i].started_at!.getTime()).toBeGreaterThanOrEqual(rows[i - 1].finished_at!.getTime());
    }
  }, 90_000);
});
