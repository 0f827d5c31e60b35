import { type Message, Role, TaskState } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Request } from 'express';

import type { RunEntity } from '../../database/entities';
import type { AssistantWire } from '../assistants/assistants.repository';
import { agentCardOf, publicUrl } from './agent-card';
import { aiTextOf, approvalOf, contentOf, resumeValueOf, runInputOf, taskOf, taskStateOf } from './task-view';

const text = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: '' });
const data = (value: unknown) => ({ content: { $case: 'data' as const, value }, metadata: undefined, filename: '', mediaType: '' });
const msg = (parts: Message['parts']): Message => ({
  messageId: 'm',
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

describe('A2A task view', () => {
  it('reads text parts as the user message and merges data parts beside it', () => {
    const c = contentOf(msg([text('hello'), data({ lang: 'ko' }), text('world'), data({ lang: 'en', n: 1 })]));
    expect(runInputOf(c)).toEqual({ lang: 'en', n: 1, messages: [{ role: 'user', content: 'hello\nworld' }] });
    expect(resumeValueOf(c)).toEqual({ lang: 'en', n: 1 });
    expect(resumeValueOf(contentOf(msg([text('yes')])))).toBe('yes');
  });

  it('takes a decision from a boolean approve only', () => {
    expect(approvalOf(contentOf(msg([data({ approve: false })])))).toBe(false);
    expect(approvalOf(contentOf(msg([text('approve'), text('승인')])))).toBeUndefined();
    expect(approvalOf(contentOf(msg([data({ approve: 'yes' })])))).toBeUndefined();
  });

  it('refuses a message without parts, a data part that is not an object, and file parts', () => {
    expect(() => contentOf(msg([]))).toThrow(RequestMalformedError);
    expect(() => contentOf(msg([data([1, 2])]))).toThrow(RequestMalformedError);
    const file = {
      content: { $case: 'url' as const, value: 'https://x/a.pdf' },
      metadata: undefined,
      filename: 'a.pdf',
      mediaType: 'application/pdf',
    };
    expect(() => contentOf(msg([file]))).toThrow(ContentTypeNotSupportedError);
  });

  it('maps run statuses to task states', () => {
    const states = (['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted'] as const).map((status) =>
      taskStateOf({ status }),
    );
    expect(states).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_FAILED,
      TaskState.TASK_STATE_CANCELED,
      TaskState.TASK_STATE_INPUT_REQUIRED,
    ]);
  });

  it('says why a task failed, and what an approval waits for in the language of the message', () => {
    const run = {
      id: 'r',
      sessionId: 's',
      status: 'interrupted',
      input: { message: '파일을 읽어 주세요' },
      error: null,
      createdAt: new Date(0),
      startedAt: null,
      finishedAt: null,
    } as unknown as RunEntity;
    const waiting = taskOf(run, { waiting: { kind: 'approval', tool: 'read_file', args: {} } });
    const said = waiting.status?.message?.parts[0]?.content;
    expect(said?.$case === 'text' && said.value).toMatch(/read_file.*승인/);
    const failed = taskOf({
      ...run,
      status: 'failed',
      input: { message: 'hi' },
      error: { code: 'X', message: 'budget exceeded' },
    } as RunEntity);
    const why = failed.status?.message?.parts[0]?.content;
    expect(why?.$case === 'text' && why.value).toBe('budget exceeded');
    expect(taskOf(run, { historyLength: 0 }).history).toEqual([]);
  });

  it('streams the text of AI chunks only', () => {
    expect(aiTextOf([{ type: 'AIMessageChunk', content: 'He' }, {}])).toBe('He');
    expect(aiTextOf([{ type: 'AIMessageChunk', content: [{ type: 'text', text: 'llo' }] }, {}])).toBe('llo');
    expect(aiTextOf([{ type: 'tool', content: '42' }, {}])).toBeUndefined();
    expect(aiTextOf({ type: 'ai', content: 'x' })).toBeUndefined();
  });
});

describe('A2A agent card', () => {
  const assistant = { assistant_id: 'a1', graph_id: 'react', name: 'react', description: null, version: 3 } as unknown as AssistantWire;

  it('lists no security scheme where the service has no authentication', () => {
    const card = agentCardOf(assistant, 'http://h/a2a/react', { apiKeys: false, tokens: false, custom: false });
    expect(card.securitySchemes).toEqual({});
    expect(card.securityRequirements).toEqual([]);
    expect(card.version).toBe('3');
    expect(card.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '0.3']);
  });

  it('offers any one of the credentials the service takes', () => {
    const card = agentCardOf(assistant, 'http://h/a2a/react', { apiKeys: true, tokens: true, custom: false });
    expect(Object.keys(card.securitySchemes)).toEqual(['apiKey', 'bearer']);
    expect(card.securityRequirements).toEqual([{ schemes: { apiKey: { list: [] } } }, { schemes: { bearer: { list: [] } } }]);
  });

  it('builds the URL the client used, ignoring a malformed forwarded prefix', () => {
    const req = (headers: Record<string, string>) => ({ headers: { host: 'h:1', ...headers }, protocol: 'http' }) as unknown as Request;
    expect(publicUrl(req({}), '/embed', '/a2a/x')).toBe('http://h:1/embed/a2a/x');
    expect(publicUrl(req({ 'x-forwarded-prefix': '/p/' }), '', '/a2a/x')).toBe('http://h:1/p/a2a/x');
    expect(publicUrl(req({ 'x-forwarded-prefix': 'javascript:alert(1)' }), '', '/a2a/x')).toBe('http://h:1/a2a/x');
  });
});
