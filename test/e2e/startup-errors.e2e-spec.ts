import { Client } from 'pg';

import { createTestDatabase, TEST_PG_URL } from '../support/infra';
import { freePort, FROM_SOURCE, type LogLine, MainProcess } from '../support/main-process';
import { ScriptedModelServer } from '../support/model-server';
import { waitFor } from '../support/test-app';

/**
 * Errors that name the setting (issue 27): a start-up that cannot work stops within seconds with one JSON line
 * naming the variable and where it points (never a password or key), and nothing but JSON on stdout.
 */
async function failedStart(env: Record<string, string>): Promise<{ fatal: LogLine; main: MainProcess; ms: number }> {
  const started = Date.now();
  const main = new MainProcess(await freePort(), { STARTUP_WAIT_MS: '1500', ...env }, FROM_SOURCE);
  const { code } = await main.exited;
  expect(code).toBe(1);
  const fatal = main.lines.find((l) => l.level === 'fatal');
  expect(fatal).toBeDefined();
  return { fatal: fatal!, main, ms: Date.now() - started };
}

/** the local Postgres with another database name */
const pg = (db = 'postgres') => Object.assign(new URL(TEST_PG_URL), { pathname: `/${db}` }).toString();

describe('start-up errors name the setting', () => {
  it('an unreachable REDIS_URL: stops after STARTUP_WAIT_MS, naming REDIS_URL and its address, password left out', async () => {
    const { fatal, main, ms } = await failedStart({ DATABASE_URL: pg(), REDIS_URL: 'redis://:hunter2@127.0.0.1:1' });
    expect(fatal.err).toMatch(
      /^REDIS_URL \(redis:\/\/127\.0\.0\.1:1\) did not answer within 1500 ms \(STARTUP_WAIT_MS\): connect ECONNREFUSED/,
    );
    expect(main.output()).not.toContain('hunter2');
    expect(main.output()).not.toMatch(/\[ioredis\] Unhandled error event/);
    expect(ms).toBeLessThan(15_000);
  });

  it('unreachable REDIS_SENTINELS: stops after STARTUP_WAIT_MS, naming REDIS_SENTINELS, the sentinels and the group', async () => {
    const { fatal, main } = await failedStart({
      DATABASE_URL: pg(),
      REDIS_SENTINELS: '127.0.0.1:1,127.0.0.1:2',
      REDIS_SENTINEL_PASSWORD: 'hunter2',
    });
    expect(fatal.err).toMatch(
      /^REDIS_SENTINELS \(127\.0\.0\.1:1,127\.0\.0\.1:2, master mymaster\) did not answer within 1500 ms \(STARTUP_WAIT_MS\): All sentinels are unreachable/,
    );
    expect(main.output()).not.toContain('hunter2');
    expect(main.output()).not.toMatch(/\[ioredis\] Unhandled error event/);
  });

  it('an unreachable DATABASE_URL names DATABASE_URL; a role or database that does not exist fails at once', async () => {
    const down = await failedStart({ DATABASE_URL: 'postgres://u:s3cret@127.0.0.1:1/app' });
    expect(down.fatal.err).toMatch(/^DATABASE_URL \(postgres:\/\/127\.0\.0\.1:1\/app\) did not answer within 1500 ms/);
    expect(down.main.output()).not.toContain('s3cret');
    const refused = await failedStart({ DATABASE_URL: pg('no_such_db_27') });
    expect(refused.fatal.err).toMatch(
      /^DATABASE_URL \(postgres:\/\/[^)]*\/no_such_db_27\) refused the connection: database "no_such_db_27" does not exist/,
    );
  });

  it.each([
    ['DATABASE_URL', 'not-a-url', /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL; got "not-a-url", which is not a URL/],
    ['DATABASE_URL', 'mysql://root:pw@db/app', /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL; got a mysql:\/\/ URL/],
    ['REDIS_URL', 'localhost:6379', /REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL; got a localhost:\/\/ URL/],
    ['LLM_BASE_URL', 'ftp://models', /LLM_BASE_URL: must be a http:\/\/ or https:\/\/ URL/],
  ])('%s=%s is refused with the schemes it takes', async (name, value, message) => {
    const { fatal, main } = await failedStart({ [name]: value });
    expect(fatal.err).toMatch(/^Invalid configuration: /);
    expect(fatal.err).toMatch(message);
    expect(main.output()).not.toContain('pw@');
  });

  it('a start that fails inside Nest (a migration) writes JSON lines only, no ANSI text', async () => {
    const db = await createTestDatabase('startup_mig');
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query('CREATE TABLE sessions (id int)'); // the first migration creates it: it fails
    await c.end();
    try {
      const { fatal, main } = await failedStart({ DATABASE_URL: db.url });
      expect(fatal.err).toMatch(/relation "sessions" already exists/);
      expect(main.output()).not.toContain(String.fromCharCode(27)); // no ANSI escape
      expect(main.lines.some((l) => l.context === 'TypeOrmModule' || l.context === 'TypeORM')).toBe(true); // Nest's own lines, as JSON
    } finally {
      await db.drop();
    }
  });

  it('an unreachable LLM_BASE_URL is named at start and in readiness, and the key never is', async () => {
    const model = new ScriptedModelServer();
    await model.start();
    const url = model.baseUrl;
    await model.stop(); // a port where nothing answers
    const main = new MainProcess(
      await freePort(),
      { DATABASE_URL: pg(), LLM_BASE_URL: url, LLM_MODEL: 'm', LLM_API_KEY: 'sk-very-secret' },
      FROM_SOURCE,
    );
    try {
      const listening = await main.waitForLine((l) => /^listening on /.test(l.msg ?? ''));
      expect(listening.msg).toContain(`model: m at ${url}`);
      const ready: any = await waitFor(async () => (await fetch(`${main.url}/health/ready`)).json());
      expect(ready.checks.model).toMatchObject({ status: 'down', detail: `LLM_BASE_URL ${url} did not answer: ECONNREFUSED` });
      expect(main.output()).not.toContain('sk-very-secret');
    } finally {
      main.child.kill('SIGKILL');
      await main.exited;
    }
  });
});
