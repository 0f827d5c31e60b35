import { writeFileSync } from 'node:fs';

import { EMBEDDED_SEED_FILE, EmbeddedPostgres } from '../database/embedded-postgres';
import { prepareDatabase } from '../database/prepare-database';

/**
 * `npm run build`'s last step: the embedded Postgres with this build's schema (migrations, checkpoint and store
 * tables), written beside the build (dist/pglite-seed.tgz) so the zero-setup first start skips initdb and the
 * migrations (see embedded-postgres.ts). Later migrations still run at start, as on any database.
 */
async function main(): Promise<void> {
  const pg = await EmbeddedPostgres.start(null, 4);
  try {
    await prepareDatabase({ databaseUrl: pg.url, migrationsRun: true });
    writeFileSync(EMBEDDED_SEED_FILE, await pg.dump());
  } finally {
    await pg.stop();
  }
  console.log(`embedded Postgres seed written to ${EMBEDDED_SEED_FILE}`);
}

main().catch((err: Error) => {
  console.error(`pglite seed failed: ${err.message}`);
  process.exit(1);
});
