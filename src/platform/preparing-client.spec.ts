import { Duplex } from 'node:stream';

import { Pool } from 'pg';

import { PreparingClient } from './preparing-client';

/** A backend message: type, length, body. */
function message(type: string, body = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
const READY = message('Z', Buffer.from('I'));
const COMPLETE = message('C', Buffer.from('SELECT 0\0'));

/**
 * The far end of a pg connection, enough of Postgres' protocol for pg to run queries over it: it records each
 * frontend message (Parse with its statement name, Query, …) and answers as for an empty result.
 */
class FakePostgres extends Duplex {
  readonly received: string[] = [];
  private buffered = Buffer.alloc(0);
  private started = false;

  setNoDelay(): void {}
  setKeepAlive(): void {}
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  connect(): this {
    queueMicrotask(() => this.emit('connect'));
    return this;
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    for (;;) {
      if (!this.started) {
        if (this.buffered.length < 4) break;
        const length = this.buffered.readInt32BE(0);
        this.buffered = this.buffered.subarray(length);
        this.started = true;
        this.reply(Buffer.concat([message('R', Buffer.from([0, 0, 0, 0])), READY])); // AuthenticationOk
        continue;
      }
      if (this.buffered.length < 5) break;
      const type = String.fromCharCode(this.buffered[0]);
      const length = this.buffered.readInt32BE(1);
      if (this.buffered.length < length + 1) break;
      const body = this.buffered.subarray(5, length + 1);
      this.buffered = this.buffered.subarray(length + 1);
      this.answer(type, body);
    }
    done();
  }

  private answer(type: string, body: Buffer): void {
    if (type === 'P') this.received.push(`Parse ${body.toString('utf8', 0, body.indexOf(0)) || '(unnamed)'}`);
    else if (type === 'Q') this.received.push('Query');
    else if (type === 'X') return void this.destroy();
    const reply: Record<string, Buffer> = { P: message('1'), B: message('2'), D: message('n'), E: COMPLETE, S: READY };
    if (type === 'Q') this.reply(Buffer.concat([COMPLETE, READY]));
    else if (reply[type]) this.reply(reply[type]);
  }

  /** answered after the write returns, as a socket would: pg may write again while handling the answer */
  private reply(bytes: Buffer): void {
    setImmediate(() => this.push(bytes));
  }
}

describe('PreparingClient (canary: what it relies on in pg)', () => {
  it('names a parameterised statement; pg parses a name once per connection; parameterless text goes as a simple query', async () => {
    const server = new FakePostgres();
    const client = new PreparingClient({ stream: server } as never);
    await client.connect();
    await client.query('SELECT $1::int AS canary_a', [1]);
    await client.query('SELECT $1::int AS canary_a', [2]);
    await client.query('SELECT $1::int AS canary_b', [3]);
    await client.query('SELECT 1');
    await client.end();
    const parses = server.received.filter((m) => m.startsWith('Parse'));
    expect(parses).toHaveLength(2); // canary_a once, canary_b once
    expect(parses.every((p) => /^Parse ao_\d+$/.test(p))).toBe(true);
    expect(parses[0]).not.toBe(parses[1]);
    expect(server.received.filter((m) => m === 'Query')).toHaveLength(1);
  });

  it('a callback query is named too and answers through its callback', async () => {
    const server = new FakePostgres();
    const client = new PreparingClient({ stream: server } as never);
    await client.connect();
    const rows = await new Promise<unknown[]>((resolve, reject) =>
      client.query('SELECT $1::int AS canary_c', [1], (err: Error | null, result: { rows: unknown[] }) =>
        err ? reject(err) : resolve(result.rows),
      ),
    );
    await client.end();
    expect(rows).toEqual([]);
    expect(server.received).toEqual([expect.stringMatching(/^Parse ao_\d+$/)]);
  });

  it("a Pool builds its clients with the Client option, so a pool's queries are prepared", async () => {
    const servers: FakePostgres[] = [];
    const stream = () => servers[servers.push(new FakePostgres()) - 1];
    const pool = new Pool({ Client: PreparingClient, max: 1, stream } as never);
    await pool.query('SELECT $1::int AS canary_d', [1]);
    await pool.query('SELECT $1::int AS canary_d', [2]);
    await pool.end();
    expect(servers).toHaveLength(1);
    expect(servers[0].received).toEqual([expect.stringMatching(/^Parse ao_\d+$/)]);
  });
});
