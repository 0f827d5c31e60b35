import { RunnableLambda } from '@langchain/core/runnables';
import { IterableReadableStream } from '@langchain/core/utils/stream';

import { closedStreamEnd } from './closed-stream-end';

const original = IterableReadableStream.fromAsyncGenerator;

async function* three(log: string[]): AsyncGenerator<number, string> {
  try {
    yield 1;
    yield 2;
    yield 3;
    return 'done';
  } finally {
    log.push('generator finished');
  }
}

describe('closedStreamEnd (canary for @langchain/core 1.4.0)', () => {
  beforeAll(() => expect(closedStreamEnd()).toBe(true));
  afterEach(() => jest.restoreAllMocks());

  it('still needs the patch: the library enqueues into the stream it has just closed', () => {
    // if a LangChain release fixes this (an `else` before the enqueue), the patch can go
    expect(original.toString()).toMatch(/if \(done\) controller\.close\(\);\s*controller\.enqueue\(value\);/);
  });

  it('reads every value, then ends, with no error thrown inside', async () => {
    const log: string[] = [];
    const thrown = jest.spyOn(ReadableStreamDefaultController.prototype, 'enqueue');
    const read: number[] = [];
    for await (const v of IterableReadableStream.fromAsyncGenerator(three(log))) read.push(v);
    expect(read).toEqual([1, 2, 3]);
    expect(log).toEqual(['generator finished']);
    expect(thrown.mock.results.filter((r) => r.type === 'throw')).toEqual([]);
  });

  it('returns the generator when the reader stops early', async () => {
    const log: string[] = [];
    for await (const v of IterableReadableStream.fromAsyncGenerator(three(log))) if (v === 1) break;
    expect(log).toEqual(['generator finished']);
  });

  it("passes the generator's failure to the reader", async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      throw new Error('tool broke');
    }
    const read: number[] = [];
    await expect(
      (async () => {
        for await (const v of IterableReadableStream.fromAsyncGenerator(failing())) read.push(v);
      })(),
    ).rejects.toThrow('tool broke');
    expect(read).toEqual([1]);
  });

  it("is what a runnable's stream is built with (the library reads the static method at each call)", async () => {
    expect(IterableReadableStream.fromAsyncGenerator).not.toBe(original);
    const built = jest.spyOn(IterableReadableStream, 'fromAsyncGenerator'); // wraps the installed one
    const chunks: string[] = [];
    for await (const c of await RunnableLambda.from((s: string) => s.toUpperCase()).stream('안녕 hi')) chunks.push(c);
    expect(chunks).toEqual(['안녕 HI']);
    expect(built).toHaveBeenCalledTimes(1);
  });
});
