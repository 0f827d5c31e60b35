import { Client } from 'pg';

import { probeServices } from '../../src/database/service-probe';
import { PreparingClient } from '../../src/platform/preparing-client';
import { TEST_PG_URL } from '../support/infra';
import { type PgBouncer, startPgBouncer } from '../support/pgbouncer';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * The service behind a real PgBouncer (Debian's 1.18) in transaction mode, where a direct connection behaves
 * otherwise: what DB_PREPARED_STATEMENTS=false is for, and a Postgres that is still starting behind it at start-up.
 * `npm test`'s PgBouncer tier runs whole suites through one.
 */
describe('behind PgBouncer in transaction mode', () => {
  describe('one server connection shared by every client', () => {
    let bouncer: PgBouncer;

    beforeAll(async () => {
      bouncer = await startPgBouncer(TEST_PG_URL, { poolSize: 1 });
    });
    afterAll(() => bouncer.stop());

    /** the same parameterised statement from one client, then from another (two pooled connections of one process) */
    async function twoClients(Kind: typeof Client): Promise<unknown[]> {
      const [a, b] = [new Kind({ connectionString: bouncer.via(TEST_PG_URL) }), new Kind({ connectionString: bouncer.via(TEST_PG_URL) })];
      const answer = (c: Client) =>
        c.query('SELECT $1::int + 1 AS n', [1]).then(
          (r) => r.rows[0].n as number,
          (e: Error) => e.message,
        );
      try {
        await a.connect();
        await b.connect();
        return [await answer(a), await answer(b)];
      } finally {
        await a.end();
        await b.end();
      }
    }

    it('named prepared statements (DB_PREPARED_STATEMENTS=true) collide on the server connection', async () => {
      expect(await twoClients(PreparingClient)).toEqual([2, expect.stringMatching(/^prepared statement "ao_\d+" already exists$/)]);
    });

    it('unnamed statements (DB_PREPARED_STATEMENTS=false) do not', async () => {
      expect(await twoClients(Client)).toEqual([2, 2]);
    });
  });

  it('start-up waits for a Postgres that comes up behind PgBouncer within STARTUP_WAIT_MS', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(TEST_PG_URL).port || 5432));
    await proxy.start();
    const behind = new URL(TEST_PG_URL);
    behind.port = String(proxy.port);
    const bouncer = await startPgBouncer(behind.toString());
    const first = new Client({ connectionString: bouncer.via(TEST_PG_URL) });
    first.on('error', () => undefined);
    try {
      proxy.cut(); // Postgres away behind PgBouncer (a compose stack starting): PgBouncer answers, its server logins fail
      await first.connect();
      const waiting = first.query('SELECT 1').catch(() => undefined); // PgBouncer tries a server login, which fails
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      setTimeout(() => proxy.restore(), 2000);
      // PgBouncer answers the probe "server login has been failing" at once: not a final answer like a bad role
      await probeServices({ databaseUrl: bouncer.via(TEST_PG_URL), redisUrl: undefined, redisSentinel: undefined, startupWaitMs: 10_000 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      await waiting;
    } finally {
      proxy.restore();
      await first.end().catch(() => undefined);
      await bouncer.stop();
      await proxy.stop();
    }
  });
});
