import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users inside a tenant: who put a LangGraph store item (the `AUTH_USER_CLAIM` of a bearer token, or the custom
 * auth's user), for the built-in owner rule (auth/resource-access.ts). The store's own table is LangGraph's
 * (`PostgresStore`, created after the migrations), so the owner lives beside it: one row per item a user put,
 * keyed as the store keys the item (its `:`-joined namespace, tenant label first, and its key). Items an API key
 * or a graph put have none (the tenant's operator's). Threads, assistants and crons keep their owner in metadata.
 */
export class StoreOwners1764020000000 implements MigrationInterface {
  name = 'StoreOwners1764020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE IF NOT EXISTS store_owners (
         prefix text NOT NULL,
         key text NOT NULL,
         owner text NOT NULL,
         PRIMARY KEY (prefix, key)
       )`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS idx_store_owners_owner ON store_owners (owner, prefix)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS store_owners`);
  }
}
