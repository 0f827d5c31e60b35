import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PGlite's start parameters, sized for a development database in a small container: 16 MB of shared buffers
 * and maintenance memory instead of Postgres's 128 MB and 64 MB (each is WASM memory that never shrinks).
 */
export const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB', '-c', 'maintenance_work_mem=16MB'];

/**
 * A cluster with this build's schema, made at build time (`npm run build` → src/cli/pglite-seed.ts): a first
 * start loads it instead of running initdb — which alone holds two Postgres instances and the initdb module in
 * memory at once, about 700 MB at its peak — and the migrations. Absent when running from sources: then the
 * first start runs initdb and the migrations.
 */
export const EMBEDDED_SEED_FILE = resolve(__dirname, '..', 'pglite-seed.tgz');

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
    const fresh = !location || !existsSync(join(location, 'PG_VERSION'));
    const seed = fresh && existsSync(EMBEDDED_SEED_FILE) ? new Blob([readFileSync(EMBEDDED_SEED_FILE)]) : undefined;
    const open = (loadDataDir?: Blob) =>
      PGlite.create(location, {
        extensions: { vector, pg_trgm },
        startParams: EMBEDDED_START_PARAMS,
        ...(loadDataDir ? { loadDataDir } : {}),
      });
    let db = await open(seed);
    // unpacking the seed grew this instance's WASM memory, which never shrinks: on disk, start again from the files
    if (seed && location) {
      await db.close();
      db = await open();
    }
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
    await server.start();
    const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
    return new EmbeddedPostgres(db, server, url);
  }

  /** The cluster as a gzipped tarball (what `loadDataDir` takes); the server must have no client left. */
  async dump(): Promise<Buffer> {
    const tarball = await this.db.dumpDataDir('gzip');
    return Buffer.from(await tarball.arrayBuffer());
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
