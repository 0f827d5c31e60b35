import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * The zero-setup default: PostgreSQL 18 compiled to WASM (PGlite), served over the Postgres wire protocol
 * on a loopback port so TypeORM, `pg` and LangGraph's PostgresSaver run unchanged against it.
 * PGlite executes one statement at a time; the socket server queues the connections' queries.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
  ) {}

  /** `dataDir` null → in memory (tests). `maxConnections` must cover every pool opened against it. */
  static async start(dataDir: string | null, maxConnections: number): Promise<EmbeddedPostgres> {
    let location: string | undefined;
    if (dataDir) {
      location = resolve(dataDir, 'pg');
      mkdirSync(location, { recursive: true });
    }
    const db = await PGlite.create(location, { extensions: { vector, pg_trgm } });
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
    await server.start();
    const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
    return new EmbeddedPostgres(db, server, url);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
