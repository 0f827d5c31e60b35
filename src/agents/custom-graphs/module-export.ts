import type { ModuleLoader } from '../../platform/module-loader';
import type { GraphSpec, LanggraphConfig } from './langgraph-config';

/** Throws the error of a `langgraph.json` module export (`what`: `auth`, `http.app`) naming its spec, file and export. */
export type ExportFailure = (why: string, cause?: unknown) => never;

/**
 * The export a `langgraph.json` key names (`./file.ts:name`), loaded as the graph modules are, with the function
 * that fails naming it — for the caller's own check of its shape. A module that does not load or has no such
 * export is an error naming the file, the export and the module's exports.
 */
export function loadModuleExport(
  what: string,
  spec: Omit<GraphSpec, 'name'>,
  config: LanggraphConfig,
  loader: ModuleLoader,
): { value: unknown; fail: ExportFailure } {
  const fail: ExportFailure = (why, cause) => {
    throw new Error(
      `Cannot load ${what} "${spec.spec}" (${spec.file}, export "${spec.exportName}") from LANGGRAPH_CONFIG ${config.path}: ${why}`,
      {
        cause,
      },
    );
  };
  let exports: Record<string, unknown> = {};
  try {
    exports = loader.load(spec.file);
  } catch (err) {
    fail((err as Error).message, err);
  }
  const value = exports[spec.exportName];
  if (value === undefined)
    fail(`the module has no export "${spec.exportName}" (its exports: ${Object.keys(exports).join(', ') || 'none'})`);
  return { value, fail };
}
