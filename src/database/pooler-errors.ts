/**
 * What PgBouncer answers while it has no server connection to give (Postgres restarting behind it): an error
 * message of its own (SQLSTATE 08P01) on a connection that stays open, not the broken socket or Postgres's
 * 57P01/08006 that a direct connection sees. A database that is away, as they are.
 */
export const POOLER_UNAVAILABLE = /server login has been failing|cannot connect to server|server conn crashed|query_wait_timeout/i;
