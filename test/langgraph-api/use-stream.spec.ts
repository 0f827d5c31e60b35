import path from 'node:path';

import { Client } from '@langchain/langgraph-sdk';
import { useStream } from '@langchain/langgraph-sdk/react';
import { JSDOM } from 'jsdom';
import { createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';

import { useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'graphs');

interface Seen {
  loading: boolean;
  texts: string[];
}

/**
 * The React `useStream` hook (`@langchain/langgraph-sdk/react`) rendered with react-dom into a happy-dom
 * document (only `window` / `document` are borrowed from it: fetch and streams stay Node's own).
 */
describe('LangGraph API: the React useStream hook', () => {
  const svc = useService('lguse', { env: { LANGGRAPH_CONFIG: path.join(FIXTURES, 'langgraph.runs.json') } });
  const dom = new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://localhost/' });
  const globals = globalThis as Record<string, unknown>;
  let root: Root;

  beforeAll(() => {
    globals.window = dom.window;
    globals.document = dom.window.document;
  });

  // the window stays: React's scheduler may still run a task after the last test (this file's sandbox goes anyway)
  afterAll(() => root?.unmount());

  it('submits a message, streams values while loading, and renders the final messages of the thread', async () => {
    const client = new Client({ apiUrl: svc.url, callerOptions: { maxRetries: 0 } });
    const renders: Seen[] = [];
    let submit: ((values: unknown) => unknown) | undefined;
    let threadId: string | undefined;

    function Chat() {
      const stream = useStream({ apiUrl: svc.url, assistantId: 'echo', messagesKey: 'messages', onThreadId: (id) => (threadId = id) });
      const texts = stream.messages.map((m) => (typeof m.content === 'string' ? m.content : ''));
      renders.push({ loading: stream.isLoading, texts });
      submit = (values) => stream.submit(values as never);
      return createElement(
        'ul',
        null,
        texts.map((t, i) => createElement('li', { key: i }, t)),
      );
    }

    const container = dom.window.document.createElement('div');
    dom.window.document.body.appendChild(container);
    root = createRoot(container as unknown as Element);
    root.render(createElement(Chat));
    await waitFor(async () => submit);

    await submit!({ messages: [{ type: 'human', content: 'hello' }] });
    const items = () => [...container.querySelectorAll('li')].map((li) => li.textContent);
    await waitFor(async () => (items().length === 2 && !renders.at(-1)!.loading ? true : undefined));

    expect(items()).toEqual(['hello', 'echo #1: hello']);
    // streamed while the run was going on: a loading render that already had the graph's values
    expect(renders.some((r) => r.loading && r.texts.includes('hello'))).toBe(true);
    // the thread the hook created holds the same messages on the server
    expect(threadId).toEqual(expect.any(String));
    const state = await client.threads.getState<{ messages: Array<{ content: string }> }>(threadId!);
    expect(state.values.messages.map((m) => m.content)).toEqual(['hello', 'echo #1: hello']);
  });

  it('reconnectOnMount: a component mounted again while the run goes on rejoins its stream and sees it finish', async () => {
    const client = new Client({ apiUrl: svc.url, callerOptions: { maxRetries: 0 } });
    const stored = new Map<string, string>();
    const storage = {
      getItem: (k: string) => stored.get(k) ?? null,
      setItem: (k: string, v: string) => void stored.set(k, v),
      removeItem: (k: string) => void stored.delete(k),
    };
    const renders: Array<{ mount: number; loading: boolean; ticks: number }> = [];
    let submit: ((values: unknown) => unknown) | undefined;
    let threadId: string | undefined;

    function Ticker(props: { mount: number; threadId?: string }) {
      const stream = useStream<{ ticks?: number; ms?: number }>({
        apiUrl: svc.url,
        assistantId: 'slow',
        threadId: props.threadId,
        onThreadId: (id: string) => (threadId = id),
        reconnectOnMount: () => storage,
      });
      renders.push({ mount: props.mount, loading: stream.isLoading, ticks: stream.values?.ticks ?? 0 });
      submit = (values) => stream.submit(values as never);
      return createElement('p', null, String(stream.values?.ticks ?? 0));
    }

    const container = dom.window.document.createElement('div');
    dom.window.document.body.appendChild(container);
    const first = createRoot(container as unknown as Element);
    first.render(createElement(Ticker, { mount: 1 }));
    await waitFor(async () => submit);
    void submit!({ ms: 150 });
    // the run is under way and the hook has recorded it for a rejoin
    await waitFor(async () => (renders.some((r) => r.mount === 1 && r.ticks >= 2) && stored.size === 1 ? true : undefined));
    first.unmount();

    const second = createRoot(container as unknown as Element);
    second.render(createElement(Ticker, { mount: 2, threadId }));
    await waitFor(async () => (renders.some((r) => r.mount === 2 && r.ticks === 10 && !r.loading) ? true : undefined));
    second.unmount();

    // the second mount followed the live run (loading, ticks climbing), not only the stored end state
    const mount2 = renders.filter((r) => r.mount === 2);
    expect(mount2.some((r) => r.loading && r.ticks < 10)).toBe(true);
    expect(stored.size).toBe(0);
    const runs = await client.runs.list(threadId!);
    expect(runs.map((r) => r.status)).toEqual(['success']);
  });
});
