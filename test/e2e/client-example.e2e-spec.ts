import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

import type { ScriptedReply } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

/**
 * `examples/client/` as a user runs it: a separate process using the typed client against the running service
 * (API keys on, in-process queue, the scripted model).
 */
const KEY = 'example-key-0123456789';

describe('examples/client against the service', () => {
  const svc = useService('client_example', { env: { ...SCRIPTED_LLM, API_KEYS: `acme:${KEY}` }, model: true });

  it('chats, waits for a job, follows a job, streams a turn and reads the session back', async () => {
    // answered by the question, not in call order: a run the in-process queue starts again (its lease lapsed on a
    // starved machine) asks its question again and still gets its own answer
    const answers: Array<[question: string, reply: ScriptedReply]> = [
      ['What is 12 times 7?', { toolCalls: [{ name: 'calculator', args: { expression: '12 * 7' } }] }],
      ['And 2 to the 10th?', { content: '2 to the 10th is 1024.' }],
      ['Thanks. What is 3 + 4?', { content: '3 + 4 is 7.' }],
      ['Say goodbye.', { content: 'Goodbye!' }],
    ];
    svc.model.setResponder((req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: '12 times 7 is 84.' };
      const question = [...req.messages].reverse().find((m) => m.role === 'user')?.content;
      return answers.find(([q]) => typeof question === 'string' && question.includes(q))?.[1];
    });
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', './test/support/swc-register.js', 'examples/client/main.ts'], {
      env: { PATH: process.env.PATH, AGENT_URL: svc.url, AGENT_API_KEY: KEY },
      timeout: 60_000,
    });
    const steps = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { step: string; value: any });
    const first = (step: string) => steps.find((s) => s.step === step)?.value;

    expect(first('agents')).toContain('react');
    expect(first('chat')).toMatchObject({ response: '12 times 7 is 84.', tools_used: ['calculator'] });
    expect(first('job')).toEqual({ status: 'completed', response: '2 to the 10th is 1024.' });
    expect(steps.filter((s) => s.step === 'job-event').at(-1)?.value).toBe('completed');
    expect(first('job-result')).toBe('3 + 4 is 7.');
    expect(first('stream')).toEqual({ tokens: 'Goodbye!', response: 'Goodbye!' });
    expect(first('result')).toBe('Goodbye!');
    expect(first('trace')).toMatchObject({ llm_calls: 2 });
    expect(first('session')).toEqual({ messages: 8, runs: ['completed', 'completed', 'completed', 'completed'] });
    expect(first('error')).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });

    // what the example read is what the service recorded, for the key's tenant only
    const path = `/v1/sessions/${first('chat').session_id}`;
    expect((await http(svc.url, 'GET', path)).status).toBe(401);
    const session = await fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(await session.json()).toMatchObject({
      agent: 'react',
      messages: expect.arrayContaining([
        { role: 'assistant', content: 'Goodbye!', run_id: expect.any(String), created_at: expect.any(String) },
      ]),
    });
  });

  it('serves the REST v1 paths the checked-in client schema was generated from (without a database)', async () => {
    const served = await fetch(`${svc.url}/docs/openapi.json`, { headers: { authorization: `Bearer ${KEY}` } });
    const doc = (await served.json()) as { paths: Record<string, unknown> };
    const generated = [...readFileSync('src/client/schema.ts', 'utf8').matchAll(/^ {4}"(\/v1\/[^"]+)": \{$/gm)].map((m) => m[1]);
    expect(generated.length).toBeGreaterThan(10);
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/v1/'))
        .sort(),
    ).toEqual(generated.sort());
  });
});
