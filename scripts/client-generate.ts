import { writeFileSync } from 'node:fs';

import { generateClientSchema, SCHEMA_FILE } from './client-schema';

/**
 * `npm run client:generate`: rewrites the typed client's schema from the server's OpenAPI document;
 * with `--stdout` prints it instead (the drift test compares that with the checked-in file).
 */
generateClientSchema().then(
  (schema) => {
    if (process.argv.includes('--stdout')) {
      process.stdout.write(schema);
      return;
    }
    writeFileSync(SCHEMA_FILE, schema);
    console.log(`wrote ${SCHEMA_FILE}`);
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
