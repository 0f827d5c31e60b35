/**
 * The name of the service's TypeORM data source in Nest's container. It is named so that a host app's own
 * default `TypeOrmModule.forRoot(...)` (its `DataSource`, `EntityManager` and repositories) does not clash with it.
 */
export const ORCHESTRATOR_DATA_SOURCE = 'agent-orchestrator';
