import type { z } from 'zod';

import { type AnySettingsSlice, buildSettings, settingsSchema } from './settings';

/**
 * Every setting of the service, read once from the environment and validated. Nothing else in `src/` reads
 * `process.env`.
 *
 * The class is a shell: each module owns its slice of settings (`<module>/<module>.settings.ts`), whose file adds
 * the slice's fields to this interface by declaration merging; the entry layer lists the slices once
 * (`src/settings/all-settings.ts`) and registers them here. `new AppConfig(env)` validates every slice in one pass, so an
 * environment with several problems names them all, and builds each slice's fields.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- the slices merge their fields in
export interface AppConfig {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class AppConfig {
  constructor(env: Record<string, string | undefined>) {
    const { slices, schema } = registry();
    Object.assign(this, buildSettings(slices, schema, env));
  }
}

let registered: { slices: readonly AnySettingsSlice[]; schema: z.ZodObject } | undefined;

function registry() {
  if (!registered) throw new Error('AppConfig: no settings slices registered; import src/settings/all-settings.ts (the entry layer) first');
  return registered;
}

/**
 * The slices AppConfig is built from (called once, by `src/settings/all-settings.ts`). A variable read by two slices, or a
 * different list registered later, is a programming error.
 */
export function registerSettings(slices: readonly AnySettingsSlice[]): void {
  if (registered) {
    if (registered.slices === slices) return;
    throw new Error('AppConfig: settings slices are registered once, by src/settings/all-settings.ts');
  }
  const schema = settingsSchema(slices);
  for (const slice of slices) {
    for (const [name, get] of Object.entries<(fields: AppConfig) => unknown>(slice.getters ?? {})) {
      Object.defineProperty(AppConfig.prototype, name, {
        configurable: true,
        get(this: AppConfig) {
          return get(this);
        },
      });
    }
  }
  registered = { slices, schema };
}

/** The registered slices, in their order (the README table, tests). */
export function registeredSettings(): readonly AnySettingsSlice[] {
  return registry().slices;
}
