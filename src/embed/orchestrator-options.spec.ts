import { DataSource } from 'typeorm';

import { configOf } from './orchestrator-options';

const layout = { worker: true, queue: 'inline' as const };

describe('configOf (module options → the service config)', () => {
  it("takes a host data source's connection settings, escaping credentials", () => {
    const ds = new DataSource({
      type: 'postgres',
      host: 'db.internal',
      port: 6543,
      username: 'app',
      password: 'p@ss:word',
      database: 'main',
    });
    expect(configOf({ database: { dataSource: ds } }, layout).databaseUrl).toBe('postgres://app:p%40ss%3Aword@db.internal:6543/main');
    const byUrl = new DataSource({ type: 'postgres', url: 'postgres://u@h/db' });
    expect(configOf({ database: { dataSource: byUrl } }, layout).databaseUrl).toBe('postgres://u@h/db');
  });

  it('maps the embedded default, model, agents and other settings by name', () => {
    const c = configOf(
      {
        database: { embedded: { dataDir: ':memory:' } },
        model: { baseUrl: 'http://m/v1', model: 'x' },
        builtInAgents: [],
        settings: { RUN_TIMEOUT_MS: '4321' },
      },
      { worker: false, queue: 'inline' },
    );
    expect(c).toMatchObject({ databaseUrl: undefined, dataDir: ':memory:', runWorker: false, runTimeoutMs: 4321, modelConfigured: true });
    expect(c.llm).toMatchObject({ baseUrl: 'http://m/v1', model: 'x' });
    expect([...c.builtInAgents!]).toEqual([]);
    expect(configOf({ builtInAgents: ['react', 'assistant'] }, layout).builtInAgents).toEqual(new Set(['react', 'assistant']));
    expect(configOf({}, layout).builtInAgents).toBeUndefined();
  });

  it('refuses a queue kind that does not match the options, and invalid settings', () => {
    expect(() => configOf({}, { worker: true, queue: 'redis' })).toThrow(/queue is "redis" but the options have no redis URL/);
    expect(() => configOf({ redis: 'redis://r:6379' }, layout)).toThrow(/declare queue: "redis"/);
    // `in-process`, the inline queue's former name, is still accepted
    expect(() => configOf({ redis: 'redis://r:6379' }, { worker: true, queue: 'in-process' })).toThrow(/declare queue: "redis"/);
    expect(configOf({}, { worker: true, queue: 'in-process' }).redisUrl).toBeUndefined();
    expect(() => configOf({ settings: { RUN_TIMEOUT_MS: 'soon' } }, layout)).toThrow(/Invalid configuration: RUN_TIMEOUT_MS/);
  });
});
