// Lint is part of the build (.ci/run): typescript-eslint with type information, import ordering, no floating promises,
// and the layers of src/ (below).
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

/*
 * The layers of src/ (ARCHITECTURE.md, "Layers"), top to bottom: a folder may import a folder of a lower layer;
 * inside one layer only the pairs in `sameLayer` (they form no folder cycle). scripts/layers.ts counts the
 * import graph against this same table: `node -r ./test/support/swc-register.js scripts/layers.ts`.
 *
 * Enforced with eslint-plugin-boundaries (7): it classifies every file into an element (one per folder of
 * src/), so the rule reads as the layer table itself — one policy per element, "may import these elements" —
 * and its message names both elements. import-x's `no-restricted-paths` would need one zone per forbidden
 * (from, to) pair (~150 of them here) and says nothing about what is allowed.
 */
export const layers = [
  // entry: the files at the root of src/ (main, worker, cluster, app.module, app.factory, index); settings: the one
  // list of the modules' settings slices, which every entry point registers before it builds an AppConfig
  ['entry', 'embed', 'cli', 'settings'],
  ['api', 'langgraph-api', 'console'], // the HTTP dialects
  ['orchestrator'], // the run service and driver
  ['agents', 'runs'], // the graphs; the run store and queue port
  ['tools', 'memory', 'scope', 'knowledge'],
  ['llm', 'events', 'auth', 'http'], // http: what every HTTP dialect shares (the one SSE writer, the one error mapping)
  ['database'], // persistence: data source, migrations, checkpoint writer, LangGraph store (database/store/)
  ['config', 'platform', 'observability'], // observability imports no feature module: features hand it their health indicators
  ['core'], // the run types and domain errors every layer shares; imports nothing
];

/** allowed imports between two folders of one layer, [from, to] — each with its reason */
export const sameLayer = [
  ['entry', 'embed'], // index.ts, the package's entry, exports the embeddable module
  ['entry', 'settings'], // main, worker and app.module register the settings slices
  ['embed', 'settings'], // the embeddable module builds its AppConfig from the host's options
  ['cli', 'settings'], // the CLIs (migrate, api-keys) read the database settings
  ['tools', 'knowledge'], // the knowledge-base and contract tools search the knowledge module
  ['llm', 'auth'], // the LLM cache keys its entries on the current tenant (auth/tenant.ts)
  ['observability', 'config'], // logger, tracing and health read their settings; config imports nothing
];

/** `client/` is the published HTTP client: a leaf that imports nothing from src/ outside itself; only the
 * package's entry (index.ts) re-exports it */
export const isolated = ['client'];


const folders = layers.flat().filter((name) => name !== 'entry');
const elements = [
  ...[...folders, ...isolated].map((name) => ({ type: name, pattern: `src/${name}`, partialMatch: false })),
  // last: the files at the root of src/ (an element matches folders, so `entry` is src/ itself, which every
  // other element is nested in; a file takes the innermost element)
  { type: 'entry', pattern: 'src', partialMatch: false },
];

/** what an element may import: its own files, every element of a lower layer, the same-layer pairs, and `extra` */
function dependencyRule(extra = []) {
  const policies = layers.flat().map((name) => {
    const below = layers.slice(layers.findIndex((layer) => layer.includes(name)) + 1).flat();
    const same = sameLayer.filter(([from]) => from === name).map(([, to]) => to);
    const allowed = [name, ...below, ...same, ...extra.filter(([from]) => from === name).map(([, to]) => to)];
    if (name === 'entry') allowed.push(...isolated);
    return { from: { element: { type: name } }, allow: { to: { element: { type: allowed } } } };
  });
  policies.push(...isolated.map((name) => ({ from: { element: { type: name } }, allow: { to: { element: { type: name } } } })));
  return ['error', { default: 'disallow', policies }];
}

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'data/**', 'node_modules/**', 'coverage/**', 'src/client/schema.ts', '*.mjs', '*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', 'console/src/**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': import.meta.dirname,
      'boundaries/elements': elements,
      // every kind of import counts, type-only ones too (as in scripts/layers.ts)
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
    },
    rules: { 'boundaries/dependencies': dependencyRule() },
  },
);
