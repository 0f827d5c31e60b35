import { Logger } from '@nestjs/common';
import IORedis, { type RedisOptions } from 'ioredis';

import { ThreadEventLog, type ThreadLogEntry, type ThreadLogEvent, type ThreadLogReadOptions } from './thread-event-log';

export interface RedisThreadEventLogOptions {
  /** QUEUE_PREFIX: parallel deployments on one Redis never see each other's threads */
  prefix: string;
  /** RUN_EVENTS_WINDOW: a thread's stream keeps about this many events */
  window: number;
  /** RUN_EVENTS_TTL_S: a thread's stream expires this long after its last event */
  ttlS: number;
  /** how long one blocking read waits before it looks at its signal again */
  blockMs?: number;
}

/** Numbers and appends one event: the counter and the stream entry `<seq>-0` change together. */
const APPEND = `
local seq = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], seq .. '-0', 'e', ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return seq`;

type AppendingRedis = IORedis & {
  threadLogAppend(counter: string, stream: string, entry: string, window: number, ttlS: number, counterTtlS: number): Promise<number>;
};

/**
 * Threads' protocol events in Redis streams (`thread-events:{prefix}:{tenant}/{thread}`). The executing process
 * appends with one script per event on its one connection (commands go out in call order, so a thread's events
 * are numbered in the order the run published them); readers use `XREAD BLOCK` on a connection of their own.
 */
export class RedisThreadEventLog extends ThreadEventLog {
  private readonly logger = new Logger(RedisThreadEventLog.name);
  private readonly redis: AppendingRedis;
  private readonly readers = new Set<IORedis>();

  constructor(
    connection: RedisOptions,
    private readonly opts: RedisThreadEventLogOptions,
  ) {
    super();
    this.redis = new IORedis(connection) as AppendingRedis;
    this.redis.on('error', (err: Error) => this.logger.warn({ msg: 'thread events: redis error', err: err.message }));
    this.redis.defineCommand('threadLogAppend', { numberOfKeys: 2, lua: APPEND });
  }

  private key(thread: string): string {
    return `thread-events:${this.opts.prefix}:${thread}`;
  }

  append(thread: string, entry: ThreadLogEntry): void {
    const key = this.key(thread);
    this.redis
      .threadLogAppend(`${key}:seq`, key, JSON.stringify(entry), this.opts.window, this.opts.ttlS, this.opts.ttlS * 24)
      .catch((err: Error) => this.logger.warn({ msg: 'thread event not appended', thread, err: err.message }));
  }

  async head(thread: string): Promise<number> {
    return Number((await this.redis.get(`${this.key(thread)}:seq`)) ?? 0);
  }

  async *read(thread: string, opts: ThreadLogReadOptions): AsyncGenerator<ThreadLogEvent> {
    const { signal } = opts;
    if (signal?.aborted) return;
    const key = this.key(thread);
    const reader = this.redis.duplicate();
    reader.on('error', () => undefined); // a lost reader ends the read below
    this.readers.add(reader);
    const abort = () => reader.disconnect();
    signal?.addEventListener('abort', abort, { once: true });
    let cursor = `${opts.since ?? 0}-0`;
    try {
      while (!signal?.aborted) {
        const res = (await reader.xread('COUNT', 500, 'BLOCK', this.opts.blockMs ?? 5000, 'STREAMS', key, cursor)) as Array<
          [string, Array<[string, string[]]>]
        > | null;
        for (const [id, fields] of res?.[0]?.[1] ?? []) {
          cursor = id;
          const entry = JSON.parse(fields[1] ?? 'null') as ThreadLogEntry;
          yield { seq: Number(id.split('-')[0]), ...entry };
          if (signal?.aborted) return;
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    } finally {
      signal?.removeEventListener('abort', abort);
      this.readers.delete(reader);
      reader.disconnect();
    }
  }

  async onModuleDestroy(): Promise<void> {
    for (const reader of this.readers) reader.disconnect();
    await this.redis.quit().catch(() => undefined);
  }
}
