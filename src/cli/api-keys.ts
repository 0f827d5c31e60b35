import 'reflect-metadata';
import '../settings/all-settings'; // the settings slices AppConfig is built from

import { DataSource } from 'typeorm';

import { ApiKeyRepository } from '../auth/api-key.repository';
import { AppConfig } from '../config/app-config';
import { DatabaseConnection } from '../database/database-connection';
import { ENTITIES } from '../database/entities';
import { MIGRATIONS } from '../database/migrations';

const USAGE = `usage: npm run api-keys -- <command> [options]
  create --tenant <tenant> [--name <label>]   create a key; it is printed once and only its SHA-256 is stored
  list   [--tenant <tenant>]                  list keys (id, tenant, name, created, revoked) — never the keys
  revoke --tenant <tenant> --id <key id>      revoke a key at once
(the database is DATABASE_URL, or the embedded one in DATA_DIR while the service is stopped)`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function run(store: ApiKeyRepository, args: string[]): Promise<number> {
  const [command] = args;
  const tenant = option(args, 'tenant');
  if (command === 'create' && tenant) {
    const { id, key } = await store.create(tenant, option(args, 'name') ?? '');
    out(`created key ${id} for tenant ${tenant}; store it now, it is not shown again:`);
    out(key);
    return 0;
  }
  if (command === 'list') {
    for (const k of await store.list(tenant)) {
      const revoked = k.revoked_at ? `revoked ${new Date(k.revoked_at).toISOString()}` : 'active';
      out(`${k.id}\t${k.tenant_id}\t${k.name || '-'}\t${new Date(k.created_at).toISOString()}\t${revoked}`);
    }
    return 0;
  }
  const id = option(args, 'id');
  if (command === 'revoke' && tenant && id) {
    const done = await store.revoke(tenant, id);
    out(done ? `revoked key ${id}` : `no active key ${id} for tenant ${tenant}`);
    return done ? 0 : 1;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

/** The admin command for hashed API keys (`node dist/cli/api-keys.js create|list|revoke`). */
async function main(): Promise<number> {
  const config = new AppConfig(process.env);
  const connection = await DatabaseConnection.open(config);
  const db = new DataSource({ type: 'postgres', url: connection.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 1 });
  await db.initialize();
  try {
    await db.runMigrations();
    return await run(new ApiKeyRepository((sql, params) => db.query(sql, params)), process.argv.slice(2));
  } finally {
    await db.destroy();
    await connection.onApplicationShutdown();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`api-keys: ${err.message}\n`);
    process.exit(1);
  },
);
