import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';

import { FakeChatModel, httpError } from '../../test/support/fake-chat-model';
import { decideJson, RAW_JSON } from './decide-json';
import { resetJsonModeMemory, setJsonDecisionSettings } from './json-mode';
import { isModelUnavailable, ModelUnavailableError } from './model-errors';

const Verdict = z.object({ is_valid: z.boolean(), reason: z.string() });
const ask = [new SystemMessage('Answer in JSON.'), new HumanMessage('is this in scope?')];
const formatOf = (m: FakeChatModel, i: number) => (m.calls[i].options.response_format as { type?: string } | undefined)?.type ?? 'none';
const REJECT_SCHEMA = httpError(400, "response_format type 'json_schema' is not supported by this server");
const REJECT_OBJECT = httpError(400, "response_format type 'json_object' is not supported by this server");

describe('decideJson', () => {
  beforeEach(() => resetJsonModeMemory());

  it('asks for json_schema (from the zod schema) by default and returns the validated value', async () => {
    const model = new FakeChatModel(['{"is_valid": true, "reason": "contract"}']);
    const out = await decideJson(model, ask, Verdict, { node: 'scope' });
    expect(out).toEqual({
      ok: true,
      value: { is_valid: true, reason: 'contract' },
      raw: '{"is_valid": true, "reason": "contract"}',
      mode: 'json_schema',
    });
    const format = model.calls[0].options.response_format as {
      type: string;
      json_schema: { name: string; schema: { properties: object } };
    };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.name).toBe('scope');
    expect(Object.keys(format.json_schema.schema.properties)).toEqual(['is_valid', 'reason']);
  });

  it('uses json_object for schemas json_schema cannot carry (transforms, a non-object root)', async () => {
    const Loose = z.object({ n: z.preprocess((v) => Number(v), z.number()) });
    const Either = z.union([z.array(z.string()), z.object({ steps: z.array(z.string()) })]);
    const model = new FakeChatModel(['{"n": "3"}', '{"steps": ["a"]}']);
    await expect(decideJson(model, ask, Loose, { node: 'n' })).resolves.toMatchObject({ ok: true, value: { n: 3 }, mode: 'json_object' });
    await expect(decideJson(model, ask, Either, { node: 'n' })).resolves.toMatchObject({
      ok: true,
      value: { steps: ['a'] },
      mode: 'json_object',
    });
    expect([0, 1].map((i) => formatOf(model, i))).toEqual(['json_object', 'json_object']);
    const sent = model.calls[0].options.response_format as Record<string, unknown>;
    expect(sent).toEqual({ type: 'json_object' });
  });

  it('JSON mode: mentions JSON in the leading system message when the prompt does not', async () => {
    const model = new FakeChatModel(['{"is_valid": true, "reason": "x"}', '{"is_valid": true, "reason": "y"}']);
    await decideJson(model, [new SystemMessage('Classify.'), new HumanMessage('q')], Verdict, { node: 'n' });
    expect(model.calls[0].messages.map((m) => [m.getType(), m.content])).toEqual([
      ['system', 'Classify.\n\nRespond with a JSON object only.'],
      ['human', 'q'],
    ]);
    await decideJson(model, [new HumanMessage('q')], Verdict, { node: 'n', mode: 'json_object' });
    expect(model.calls[1].messages.map((m) => m.getType())).toEqual(['system', 'human']);
  });

  it('uses the configured mode: json_object, or off (no response_format)', async () => {
    const object = new FakeChatModel(['{"is_valid": false, "reason": "x"}']);
    setJsonDecisionSettings(object, { mode: 'json_object', retries: 1 });
    await expect(decideJson(object, ask, Verdict, { node: 'n' })).resolves.toMatchObject({ ok: true, mode: 'json_object' });
    expect(formatOf(object, 0)).toBe('json_object');

    const off = new FakeChatModel(['{"is_valid": false, "reason": "x"}']);
    await expect(decideJson(off, ask, Verdict, { node: 'n', mode: 'off' })).resolves.toMatchObject({ ok: true, mode: 'off' });
    expect(formatOf(off, 0)).toBe('none');
  });

  it('auto: steps down json_schema → json_object → off on 400 rejections, retries, and remembers per endpoint', async () => {
    const model = new FakeChatModel([
      REJECT_SCHEMA,
      REJECT_OBJECT,
      '{"is_valid": true, "reason": "ok"}',
      '{"is_valid": false, "reason": "again"}',
    ]);
    const first = await decideJson(model, ask, Verdict, { node: 'n' });
    expect(first).toMatchObject({ ok: true, mode: 'off', value: { is_valid: true } });
    expect([0, 1, 2].map((i) => formatOf(model, i))).toEqual(['json_schema', 'json_object', 'none']);
    // the next call starts where the endpoint works
    await expect(decideJson(model, ask, Verdict, { node: 'n' })).resolves.toMatchObject({ ok: true, mode: 'off' });
    expect(formatOf(model, 3)).toBe('none');
    expect(model.calls).toHaveLength(4);
  });

  it('auto: remembers json_object when only json_schema is rejected; other models keep their own memory', async () => {
    const model = new FakeChatModel([REJECT_SCHEMA, '{"is_valid": true, "reason": "a"}', '{"is_valid": true, "reason": "b"}']);
    await decideJson(model, ask, Verdict, { node: 'n' });
    await decideJson(model, ask, Verdict, { node: 'n' });
    expect([0, 1, 2].map((i) => formatOf(model, i))).toEqual(['json_schema', 'json_object', 'json_object']);
    const other = new FakeChatModel(['{"is_valid": true, "reason": "c"}'], 'another-model');
    await decideJson(other, ask, Verdict, { node: 'n' });
    expect(formatOf(other, 0)).toBe('json_schema');
  });

  it('an explicit mode does not fall back; a 400 for another reason is a model failure, not a fallback', async () => {
    const explicit = new FakeChatModel([REJECT_SCHEMA]);
    await expect(decideJson(explicit, ask, Verdict, { node: 'n', mode: 'json_schema' })).rejects.toBeInstanceOf(ModelUnavailableError);
    expect(explicit.calls).toHaveLength(1);

    const other400 = new FakeChatModel([httpError(400, 'maximum context length is 4096 tokens')]);
    const err = await decideJson(other400, ask, Verdict, { node: 'n' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect((err as ModelUnavailableError).code).toBe('MODEL_UNAVAILABLE');
    expect(other400.calls).toHaveLength(1);
  });

  it('reads JSON wrapped in prose or in a ```json fence', async () => {
    const model = new FakeChatModel([
      'Sure! Here is my decision: {"is_valid": true, "reason": "계약"} Let me know.',
      '```json\n{"is_valid": false, "reason": "weather"}\n```',
    ]);
    await expect(decideJson(model, ask, Verdict, { node: 'n' })).resolves.toMatchObject({
      ok: true,
      value: { is_valid: true, reason: '계약' },
    });
    await expect(decideJson(model, ask, Verdict, { node: 'n' })).resolves.toMatchObject({ ok: true, value: { is_valid: false } });
  });

  it('re-asks once with a correction after an unparseable answer, then succeeds', async () => {
    const model = new FakeChatModel(['I think it is in scope.', '{"is_valid": true, "reason": "fixed"}']);
    const out = await decideJson(model, ask, Verdict, { node: 'n' });
    expect(out).toMatchObject({ ok: true, value: { reason: 'fixed' } });
    const second = model.calls[1].messages;
    expect(second).toHaveLength(ask.length + 2);
    expect(second[ask.length].content).toBe('I think it is in scope.');
    expect(String(second[ask.length + 1].content)).toMatch(/no JSON in the answer/);
  });

  it('gives up after the bounded re-asks with the reason and the last raw answer', async () => {
    const model = new FakeChatModel(['nope', '{"is_valid": "maybe"}', 'never called']);
    const out = await decideJson(model, ask, Verdict, { node: 'n' });
    expect(out.ok).toBe(false);
    expect(out).toMatchObject({ raw: '{"is_valid": "maybe"}', reason: expect.stringMatching(/does not match the schema.*is_valid/) });
    expect(model.calls).toHaveLength(2);

    const noRetry = new FakeChatModel(['nope']);
    await expect(decideJson(noRetry, ask, Verdict, { node: 'n', retries: 0 })).resolves.toMatchObject({
      ok: false,
      reason: 'no JSON in the answer',
    });
    expect(noRetry.calls).toHaveLength(1);
  });

  it('array vs wrapper: a wrapper schema validates {"steps": [...]}; RAW_JSON returns a bare array (json_object, or off)', async () => {
    const Plan = z.object({ steps: z.array(z.string()).min(1) });
    const wrapped = new FakeChatModel(['{"steps": ["search", "answer"]}']);
    await expect(decideJson(wrapped, ask, Plan, { node: 'planner' })).resolves.toMatchObject({
      ok: true,
      value: { steps: ['search', 'answer'] },
    });

    const raw = new FakeChatModel(['Plan:\n["search", "answer"]', '{"plan": ["a"]}']);
    await expect(decideJson(raw, ask, RAW_JSON, { node: 'planner', mode: 'off' })).resolves.toMatchObject({
      ok: true,
      value: ['search', 'answer'],
    });
    expect(formatOf(raw, 0)).toBe('none');
    await expect(decideJson(raw, ask, RAW_JSON, { node: 'planner' })).resolves.toMatchObject({
      ok: true,
      value: { plan: ['a'] },
      mode: 'json_object',
    });
    expect(formatOf(raw, 1)).toBe('json_object');
  });

  it('tags the call for metering (model_call_node) and keeps it out of token streaming (nostream)', async () => {
    const model = new FakeChatModel(['{"is_valid": true, "reason": "r"}']);
    const seen: Array<{ tags?: string[]; metadata?: Record<string, unknown> }> = [];
    const handler = {
      handleChatModelStart: (...args: unknown[]) =>
        void seen.push({ tags: args[5] as string[], metadata: args[6] as Record<string, unknown> }),
    };
    await decideJson(model, ask, Verdict, {
      node: 'evaluator',
      config: { callbacks: [handler], tags: ['t1'], metadata: { langgraph_node: 'graph_node' } },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0].tags).toEqual(expect.arrayContaining(['t1', 'nostream']));
    expect(seen[0].metadata).toMatchObject({ model_call_node: 'evaluator', langgraph_node: 'graph_node' });
  });

  it('maps model failures to ModelUnavailableError and lets cancellation through unchanged', async () => {
    const failing = new FakeChatModel([Object.assign(new Error('500 boom'), { status: 500 })]);
    const err = await decideJson(failing, ask, Verdict, { node: 'n' }).catch((e: unknown) => e);
    expect(isModelUnavailable(err)).toBe(true);
    expect((err as Error).message).toMatch(/500 boom/);

    const controller = new AbortController();
    const abort = Object.assign(new Error('AbortError'), { name: 'AbortError' });
    const cancelled = new FakeChatModel([abort]);
    controller.abort();
    const got = await decideJson(cancelled, ask, Verdict, { node: 'n', config: { signal: controller.signal } }).catch((e: unknown) => e);
    expect(got).not.toBeInstanceOf(ModelUnavailableError);
  });
});
