import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

interface SseEvent {
  event: string;
  data: any;
}

async function readSse(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('event:'))
    .map((block) => ({
      event: block.match(/^event: (.*)$/m)![1],
      data: JSON.parse(block.match(/^data: (.*)$/m)![1]),
    }));
}

/** Server-Sent Events: a sync turn streamed (progress, tokens, result) and a queued run's events. */
describe('streaming', () => {
  const svc = useService('streaming', { env: SCRIPTED_LLM, model: true });
  const { model } = svc;

  it('streams a turn: run ids, node progress, model tokens, then the ChatResult', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '9*9' } }] }, { content: 'Nine times nine is eighty-one.' });
    const res = await fetch(`${svc.url}/v1/chat/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'What is nine times nine?' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = await readSse(res);
    expect(events[0]).toMatchObject({ event: 'run', data: { run_id: expect.any(String), session_id: expect.any(String) } });
    expect(events.filter((e) => e.event === 'progress').map((e) => e.data.node)).toEqual([
      'InputNode',
      'LlmNode',
      'ToolNode',
      'LlmNode',
      'ResponseNode',
    ]);
    const tokens = events
      .filter((e) => e.event === 'token')
      .map((e) => e.data.content)
      .join('');
    expect(tokens).toBe('Nine times nine is eighty-one.');
    expect(model.requests[1].stream).toBe(true);
    const result = events.at(-1)!;
    expect(result).toMatchObject({
      event: 'result',
      data: { response: 'Nine times nine is eighty-one.', llm_calls: 2, run_id: events[0].data.run_id },
    });
  });

  it('a node that streams its model answer and returns it as a new message sends the tokens once', async () => {
    // plan-execute's chitchat (rules) → respond: the model's chunks, then its own AIMessage of the text (another id)
    model.enqueue({ content: '안녕하세요! 무엇을 도와드릴까요?' });
    const res = await fetch(`${svc.url}/v1/chat/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: '안녕하세요', agent: 'plan-execute' }),
    });
    const events = await readSse(res);
    const result = events.at(-1)!;
    expect(result).toMatchObject({ event: 'result', data: { response: '안녕하세요! 무엇을 도와드릴까요?', llm_calls: 1 } });
    expect(model.requests.at(-1)!.stream).toBe(true);
    const tokens = events.filter((e) => e.event === 'token');
    expect(tokens.length).toBeGreaterThan(1); // streamed, not one whole message
    expect(tokens.map((e) => e.data.content).join('')).toBe(result.data.response);
  });

  it('answers validation errors on the stream route as JSON', async () => {
    const res = await http(svc.url, 'POST', '/v1/chat/stream', { message: '' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('streams a queued run until it ends', async () => {
    model.latencyMs = 300;
    model.enqueue({ content: 'done slowly' });
    const sub = await http(svc.url, 'POST', '/v1/jobs', { message: 'take your time' });
    const events = await readSse(await fetch(`${svc.url}/v1/jobs/${sub.body.job_id}/events`));
    model.latencyMs = 0;
    const statuses = events.filter((e) => e.event === 'status').map((e) => e.data.status);
    expect(statuses.at(-1)).toBe('completed');
    expect(statuses).toContain('running');
    expect(events.at(-1)).toMatchObject({ event: 'result', data: { response: 'done slowly' } });
    expect((await http(svc.url, 'GET', '/v1/jobs/00000000-0000-4000-8000-000000000000/events')).status).toBe(404);
  });
});
