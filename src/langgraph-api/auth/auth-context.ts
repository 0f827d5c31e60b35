import { contextSlot } from '../../observability/context-slot';

/** The user the custom auth's `authenticate` returned, normalized as LangGraph Platform does. */
export interface CustomAuthUser {
  identity: string;
  permissions: string[];
  /** every field the handler returned, plus `identity`, `permissions`, `display_name`, `is_authenticated` */
  fields: Record<string, unknown>;
}

const current = contextSlot<CustomAuthUser>('custom-auth-user');

/** Runs the rest of the request with its custom-auth user (read by the resource handlers' authorization). */
export function withCustomAuthUser<T>(user: CustomAuthUser, fn: () => T): T {
  return current.run(user, fn);
}

/** The custom-auth user of the request being handled; undefined for the service's own credentials. */
export function customAuthUser(): CustomAuthUser | undefined {
  return current.get();
}
