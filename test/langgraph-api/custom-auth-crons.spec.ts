import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';

import { useService } from '../support/service-fixture';

/** the conformance suite's custom auth: bearer `user-a` is alice, `user-b` bob; `on("*")` filters by `owner` */
const CONFIG = path.join(__dirname, '..', 'conformance', 'graphs', 'auth', 'langgraph.json');
const NEVER_SOON = '0 0 1 1 *';
const INPUT = { messages: [{ role: 'human', content: 'hi' }] };

/** Crons under langgraph.json's custom auth (LangGraph Platform's JS server has no crons to compare with). */
describe('LangGraph API: custom auth on crons', () => {
  const svc = useService('custom_auth_crons', { env: { LANGGRAPH_CONFIG: CONFIG } });
  const clientOf = (token: string) =>
    new Client({ apiUrl: svc.url, defaultHeaders: { Authorization: `Bearer ${token}` }, callerOptions: { maxRetries: 0 } });

  it("refuses a cron on another user's thread and hides a user's crons from another", async () => {
    const [alice, bob] = [clientOf('user-a'), clientOf('user-b')];
    const thread = await alice.threads.create();
    await expect(bob.crons.createForThread(thread.thread_id, 'chat', { schedule: NEVER_SOON, input: INPUT })).rejects.toThrow('HTTP 404');
    const cron = await alice.crons.createForThread(thread.thread_id, 'chat', {
      schedule: NEVER_SOON,
      input: INPUT,
      metadata: { owner: 'alice' },
    });
    expect((await alice.crons.search({})).map((c) => c.cron_id)).toEqual([cron.cron_id]);
    expect(await bob.crons.search({})).toEqual([]);
    expect(await bob.crons.count({})).toBe(0);
    await expect(bob.crons.delete(cron.cron_id)).rejects.toThrow('HTTP 404');
    await alice.crons.delete(cron.cron_id);
    expect(await alice.crons.count({})).toBe(0);
  });
});
