import { parseServerTiming } from '../../bench/turn.bench';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

/** PHASE_TIMINGS=true: a react turn's response names its phases in `Server-Timing` (what `npm run bench -- --breakdown` reads). */
describe('phase timings of a react turn', () => {
  const svc = useService('phase_timings', { env: { ...SCRIPTED_LLM, PHASE_TIMINGS: 'true' }, model: { resetEach: true } });

  it('times the run record, each node, the model exchange, the tool and the result (the turn checkpointed with it)', async () => {
    svc.model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '12 * 7' } }] }, { content: '12 times 7 is 84.' });
    const res = await http(svc.url, 'POST', '/v1/chat', { message: 'What is 12 times 7?' });
    expect(res.status).toBe(200);
    expect(res.body.llm_calls).toBe(2);
    const phases = parseServerTiming(res.headers.get('server-timing'));
    for (const name of [
      'run_record',
      'step:InputNode',
      'step:LlmNode',
      'step:ToolNode',
      'model_request_to_first_chunk',
      'model_request_to_last_chunk',
      'model_call_to_parsed',
      'tool',
      'result_txn',
      'server',
    ]) {
      expect({ name, ms: phases.get(name) }).toEqual({ name, ms: expect.any(Number) });
    }
    // a new session's turn is accepted already holding its lease, and its new thread has no checkpoint to read
    for (const name of ['lease', 'run_start', 'checkpoint_read']) expect({ name, ms: phases.get(name) }).toEqual({ name, ms: undefined });
    // a react turn checkpoints once, at its end: in the statement that records the result (result_txn), not on its own
    expect(phases.get('checkpoint_write')).toBeUndefined();
    // spans lie inside the handler: none is longer than the whole, and the model exchange is inside the model call
    for (const [name, ms] of phases) expect({ name, within: ms >= 0 && ms <= phases.get('server')! }).toEqual({ name, within: true });
    expect(phases.get('model_request_to_first_chunk')!).toBeLessThanOrEqual(phases.get('model_request_to_last_chunk')!);
    expect(phases.get('model_request_to_last_chunk')!).toBeLessThanOrEqual(phases.get('model_call_to_parsed')!);

    // the session's next turn reads the thread's checkpoint with its acceptance (the statement that takes the lease
    // returns it), not on its own — and the model is still sent the whole history from it
    svc.model.enqueue({ content: 'Still 84.' });
    const next = await http(svc.url, 'POST', '/v1/chat', { message: 'And again?', session_id: res.body.session_id });
    expect(next.status).toBe(200);
    const again = parseServerTiming(next.headers.get('server-timing'));
    expect({ read: again.get('checkpoint_read'), lease: again.get('lease') }).toEqual({ read: undefined, lease: undefined });
    const sent = JSON.stringify(svc.model.requests.at(-1)?.messages);
    for (const said of ['What is 12 times 7?', '12 times 7 is 84.', 'And again?']) expect(sent).toContain(said);
  });

  it('is off by default: no Server-Timing header', async () => {
    await svc.restart({ PHASE_TIMINGS: undefined });
    svc.model.enqueue({ content: 'hello' });
    const res = await http(svc.url, 'POST', '/v1/chat', { message: 'hi there' });
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toBeNull();
  });
});
