import { Role, type StreamResponse, TaskState } from '@a2a-js/sdk';

import { AnswerCollector, cutAnswer, partsText } from './a2a-answer';

const text = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const message = (value: string) => ({
  messageId: 'm',
  contextId: 'ctx-1',
  taskId: '',
  role: Role.ROLE_AGENT,
  parts: [text(value)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const status = (state: TaskState, words?: string) => ({ state, message: words ? message(words) : undefined, timestamp: undefined });
const task = (state: TaskState): StreamResponse => ({
  payload: {
    $case: 'task',
    value: { id: 't-1', contextId: 'ctx-1', status: status(state), artifacts: [], history: [], metadata: undefined },
  },
});
const chunk = (artifactId: string, value: string, append: boolean): StreamResponse => ({
  payload: {
    $case: 'artifactUpdate',
    value: {
      taskId: 't-1',
      contextId: 'ctx-1',
      artifact: { artifactId, name: '', description: '', parts: [text(value)], metadata: undefined, extensions: [] },
      append,
      lastChunk: false,
      metadata: undefined,
    },
  },
});
const update = (state: TaskState, words?: string): StreamResponse => ({
  payload: { $case: 'statusUpdate', value: { taskId: 't-1', contextId: 'ctx-1', status: status(state, words), metadata: undefined } },
});

describe('a remote agent’s answer from its stream', () => {
  it('joins artifact chunks by artifact id, in order, and keeps the task and context ids', () => {
    const c = new AnswerCollector();
    for (const e of [
      task(TaskState.TASK_STATE_WORKING),
      update(TaskState.TASK_STATE_WORKING, 'thinking…'),
      chunk('a', 'The capital ', false),
      chunk('a', 'of France ', true),
      chunk('b', 'Sources: atlas', false),
      chunk('a', 'is Paris.', true),
      update(TaskState.TASK_STATE_COMPLETED),
    ])
      c.add(e);
    expect(c.text()).toBe('The capital of France is Paris.\n\nSources: atlas');
    expect([c.taskId, c.contextId, c.failure()]).toEqual(['t-1', 'ctx-1', undefined]);
  });

  it('a chunk that does not append replaces the artifact', () => {
    const c = new AnswerCollector();
    [chunk('a', 'draft', false), chunk('a', 'final', false)].forEach((e) => c.add(e));
    expect(c.text()).toBe('final');
  });

  it('without artifacts, the agent’s last message (a direct reply or a status message) is the answer', () => {
    const direct = new AnswerCollector();
    direct.add({ payload: { $case: 'message', value: message('안녕하세요, 도와드릴게요.') } });
    expect(direct.text()).toBe('안녕하세요, 도와드릴게요.');
    expect(direct.contextId).toBe('ctx-1');

    const byStatus = new AnswerCollector();
    [task(TaskState.TASK_STATE_WORKING), update(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which city?')].forEach((e) => byStatus.add(e));
    expect(byStatus.text()).toBe('Which city?');
    expect(byStatus.failure()).toBeUndefined();
  });

  it('a task that failed or was rejected is a failure with the agent’s words', () => {
    const c = new AnswerCollector();
    [task(TaskState.TASK_STATE_WORKING), update(TaskState.TASK_STATE_FAILED, 'upstream quota exceeded')].forEach((e) => c.add(e));
    expect(c.failure()).toBe('failed: upstream quota exceeded');
    const r = new AnswerCollector();
    r.add(update(TaskState.TASK_STATE_REJECTED));
    expect(r.failure()).toBe('rejected the task');
  });

  it('reads a blocking call’s Task with its artifacts', () => {
    const c = new AnswerCollector();
    c.addResult({
      id: 't-2',
      contextId: 'ctx-2',
      status: status(TaskState.TASK_STATE_COMPLETED),
      artifacts: [
        { artifactId: 'a', name: '', description: '', parts: [text('12 '), text('apples')], metadata: undefined, extensions: [] },
      ],
      history: [],
      metadata: undefined,
    });
    expect([c.text(), c.taskId, c.contextId]).toEqual(['12 apples', 't-2', 'ctx-2']);
  });

  it('names file parts and renders data parts as JSON', () => {
    const parts = [
      { content: { $case: 'url' as const, value: 'https://x.example/a.pdf' }, metadata: undefined, filename: 'a.pdf', mediaType: '' },
      { content: { $case: 'data' as const, value: { n: 1 } }, metadata: undefined, filename: '', mediaType: '' },
    ];
    expect(partsText(parts)).toBe('[file: a.pdf]{"n":1}');
  });
});

describe('the size cut', () => {
  it('keeps an answer within max_chars as is', () => {
    expect(cutAnswer('short', 100)).toBe('short');
  });
  it('cuts a longer one at max_chars, with a marker', () => {
    const out = cutAnswer('x'.repeat(5000), 1000);
    expect(out.startsWith('x'.repeat(1000))).toBe(true);
    expect(out).not.toContain('x'.repeat(1001));
    expect(out).toMatch(/…\[cut: the remote agent's answer was longer than 1000 characters\]$/);
  });
});
