import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const SCHEMA_FILE = 'src/client/schema.ts';

/**
 * The typed client is only as right as its schema: the checked-in file must be what the server documents today.
 * Generated in a child process: openapi-typescript loads ES modules, which jest's module runtime cannot require.
 */
describe('typed client schema', () => {
  it(`${SCHEMA_FILE} matches the OpenAPI document (else run \`npm run client:generate\`)`, () => {
    const fresh = execFileSync(process.execPath, ['-r', './test/support/swc-register.js', 'scripts/client-generate.ts', '--stdout'], {
      encoding: 'utf8',
    });
    expect(fresh).toContain('"/v1/chat"');
    if (fresh !== readFileSync(SCHEMA_FILE, 'utf8')) {
      throw new Error(`${SCHEMA_FILE} is out of date with the server's OpenAPI document: run \`npm run client:generate\` and commit it`);
    }
  });
});
