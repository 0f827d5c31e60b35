/** A plain `pg` pool on the service's database, for LangGraph's PostgresSaver (see database.module.ts). */
export const PG_POOL = Symbol('PG_POOL');
