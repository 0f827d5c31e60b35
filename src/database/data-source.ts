import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** For the TypeORM CLI (`npm run migration:generate -- src/database/migrations/Name`); needs DATABASE_URL. */
export default new DataSource({
  type: 'postgres',
  url: process.env.DATABASE_URL,
  entities: ENTITIES,
  migrations: MIGRATIONS,
});
