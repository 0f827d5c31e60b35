import { useService } from '../support/service-fixture';
import { http } from '../support/test-app';

/**
 * The `react` agent end to end: the real app over HTTP, real Postgres, the real ChatOpenAI client
 * against the scripted model server (retries, tool calls, faults).
 */
describe('react agent over HTTP (sync turns)', () => {
  const svc = useService('react_chat', {
    env: {
      LLM_MODEL: 'scripted-model',
      LLM_API_KEY: 'test',
      LLM_MAX_RETRIES: '2',
      LLM_TIMEOUT_MS: '2000',
      MAX_ITERATIONS: '3',
      LLM_CACHE: 'false', // counts model calls exactly; the cache has its own suite
    },
    model: { resetEach: true },
  });
  const { model } = svc;

  const chat = (body: Record<string, unknown>) => http(svc.url, 'POST', '/v1/chat', body);

  it('answers a calculator question with one tool call and two model calls', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '12 * 7' } }] }, { content: '12 times 7 is 84.' });
    const res = await chat({ message: 'What is 12 times 7?' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      response: '12 times 7 is 84.',
      agent: 'react',
      tools_used: ['calculator'],
      tool_calls: [{ name: 'calculator', args: { expression: '12 * 7' }, status: 'success' }],
      llm_calls: 2,
      error: null,
      metadata: { model_used: true, model: 'scripted-model' },
    });
    expect(res.body.metadata.thread_id).toBe(res.body.session_id);
    // the model saw the tool's result in its second request
    const second = model.requests[1].messages;
    expect(second[second.length - 1]).toMatchObject({ role: 'tool', content: '84' });
    // tools were offered natively
    expect(model.requests[0].tools?.map((t: any) => t.function.name).sort()).toEqual(['calculator', 'get_current_datetime']);

    const trace = await http(svc.url, 'GET', `/v1/sessions/${res.body.session_id}/runs/${res.body.run_id}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.body.model_calls).toHaveLength(2);
    expect(trace.body.model_calls[0]).toMatchObject({ node: 'LlmNode' });
    expect(trace.body.model_calls[0].prompt_tokens).toBeGreaterThan(0);
    expect(trace.body.usage.llm_calls).toBe(2);
  });

  it('feeds a tool error back to the model instead of failing the run', async () => {
    model.enqueue(
      { toolCalls: [{ name: 'get_current_datetime', args: { timezone: 'Mars/Olympus' } }] },
      { content: 'That time zone does not exist.' },
    );
    const res = await chat({ message: 'What time is it on Mars/Olympus?' });
    expect(res.status).toBe(200);
    expect(res.body.error).toBeNull();
    expect(res.body.tool_calls).toEqual([{ name: 'get_current_datetime', args: { timezone: 'Mars/Olympus' }, status: 'error' }]);
    const toolMsg = model.requests[1].messages.at(-1)!;
    expect(toolMsg.role).toBe('tool');
    expect(toolMsg.content).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it('stops at MAX_ITERATIONS with a user-facing message and an error code', async () => {
    model.setResponder(() => ({ toolCalls: [{ name: 'calculator', args: { expression: '1+1' } }] }));
    const res = await chat({ message: 'Keep calculating forever' });
    model.setResponder(undefined);
    expect(res.status).toBe(200);
    expect(res.body.error).toMatchObject({ code: 'ITERATION_LIMIT' });
    expect(res.body.response).toBe('The request needed too many steps. Please split it into smaller questions.');
    expect(res.body.llm_calls).toBe(3);
    expect(model.callCount).toBe(3);
    const job = await http(svc.url, 'GET', `/v1/jobs/${res.body.run_id}`);
    expect(job.body.status).toBe('failed');
    expect(job.body.error.code).toBe('ITERATION_LIMIT');
  });

  it('retries a failing model endpoint and succeeds', async () => {
    model.enqueue({ fault: 'http_500' }, { content: 'Hello again.' });
    const res = await chat({ message: 'Say hello' });
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('Hello again.');
    expect(model.callCount).toBe(2);
  });

  it('gives up after bounded retries with MODEL_UNAVAILABLE, still as a ChatResult', async () => {
    model.enqueue({ fault: 'http_500' }, { fault: 'http_500' }, { fault: 'http_500' });
    const res = await chat({ message: 'Say hello' });
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe('MODEL_UNAVAILABLE');
    expect(res.body.response).toBe('The language model could not be reached, so I could not answer. Please try again later.');
    expect(model.callCount).toBe(3); // 1 + LLM_MAX_RETRIES
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.js:\d+/);
  });

  it('treats a malformed model reply as a model failure', async () => {
    model.setResponder(() => ({ fault: 'malformed' }));
    const res = await chat({ message: 'Say hello' });
    model.setResponder(undefined);
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe('MODEL_UNAVAILABLE');
  });

  it('answers a bare arithmetic expression by rules alone (no model call)', async () => {
    const res = await chat({ message: '(12 + 3) * 4' });
    expect(res.body).toMatchObject({ response: '(12 + 3) * 4 = 60', llm_calls: 0, tools_used: ['calculator'] });
    expect(model.callCount).toBe(0);
  });

  it('continues a conversation on the same session and keeps the full history', async () => {
    model.enqueue({ content: 'Nice to meet you, Chulsoo.' }, { content: 'Your name is Chulsoo.' });
    const first = await chat({ message: 'My name is Chulsoo.' });
    const second = await chat({ message: 'What is my name?', session_id: first.body.session_id });
    expect(second.status).toBe(200);
    expect(second.body.session_id).toBe(first.body.session_id);
    const contents = model.requests[1].messages.map((m: any) => m.content);
    expect(contents).toEqual(expect.arrayContaining(['My name is Chulsoo.', 'Nice to meet you, Chulsoo.', 'What is my name?']));

    const session = await http(svc.url, 'GET', `/v1/sessions/${first.body.session_id}`);
    expect(session.body.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'My name is Chulsoo.'],
      ['assistant', 'Nice to meet you, Chulsoo.'],
      ['user', 'What is my name?'],
      ['assistant', 'Your name is Chulsoo.'],
    ]);
    expect(session.body.runs).toHaveLength(2);
    const result = await http(svc.url, 'GET', `/v1/sessions/${first.body.session_id}/result`);
    expect(result.body.run_id).toBe(second.body.run_id);
  });

  it('never runs two turns of one session at the same time', async () => {
    model.enqueue({ content: 'first answer' });
    const first = await chat({ message: 'first' });
    model.latencyMs = 300;
    model.enqueue({ content: 'second answer' }, { content: 'third answer' });
    const [a, b] = await Promise.all([
      chat({ message: 'second', session_id: first.body.session_id }),
      chat({ message: 'third', session_id: first.body.session_id }),
    ]);
    model.latencyMs = 0;
    expect([a.status, b.status]).toEqual([200, 200]);
    // turns ran in the order accepted, one after the other: the later model request holds the earlier answer
    expect(model.requests).toHaveLength(3);
    const laterRequest = model.requests[2].messages.map((m: any) => m.content);
    expect(laterRequest).toContain('second answer');
    expect([a.body.response, b.body.response].sort()).toEqual(['second answer', 'third answer']);
  });

  it('deletes a session with its messages, runs and checkpoints', async () => {
    model.enqueue({ content: 'ok' }, { content: 'fresh start' });
    const turn = await chat({ message: 'remember me' });
    const del = await http(svc.url, 'DELETE', `/v1/sessions/${turn.body.session_id}`);
    expect(del.status).toBe(204);
    expect((await http(svc.url, 'GET', `/v1/sessions/${turn.body.session_id}`)).status).toBe(404);
    expect((await http(svc.url, 'GET', `/v1/jobs/${turn.body.run_id}`)).status).toBe(404);
    expect((await chat({ message: 'again', session_id: turn.body.session_id })).status).toBe(404);
  });
});
