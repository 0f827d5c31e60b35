import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import type * as Swc from '@swc/core';

/** The service's own `require`: packages imported by a graph module resolve to the instances the service uses. */
const serviceRequire: NodeJS.Require = require;

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);
const EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'];
const JS_TO_TS: Record<string, string[]> = { '.js': ['.ts'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

type LoadedModule = { exports: Record<string, unknown> };

/**
 * Loads the modules a `langgraph.json` names (graphs, auth, http apps, store embedding functions) at run time, without a build step: TypeScript and ES modules
 * (`.ts .mts .cts .js .mjs`) are transpiled to CommonJS with `@swc/core` (`.cjs` runs as it is) and evaluated
 * in this realm. Relative imports load the same way (`./state.js` finds `state.ts`, as TypeScript's NodeNext
 * convention writes it); package imports (`@langchain/langgraph`, `@langchain/core`, `zod`, …) resolve through
 * the service's own `require` first — the same instances as its checkpointer and orchestrator, which a native
 * `import()` would not give (it would load the packages' ESM builds, another copy of every class) — and fall
 * back to the module's own `node_modules`.
 *
 * Not supported: top-level `await` (modules are evaluated as CommonJS).
 */
export class ModuleLoader {
  private readonly cache = new Map<string, LoadedModule>();
  private swc?: typeof Swc;

  /** The exports of a module (loaded once per loader). */
  load(file: string): Record<string, unknown> {
    return this.loadFile(path.resolve(file)).exports;
  }

  private loadFile(filename: string): LoadedModule {
    const cached = this.cache.get(filename);
    if (cached) return cached;
    const source = readFileSync(filename, 'utf8');
    const module: LoadedModule = { exports: {} };
    this.cache.set(filename, module);
    try {
      if (path.extname(filename) === '.json') {
        module.exports = JSON.parse(source) as Record<string, unknown>;
        return module;
      }
      const code = `${this.transpile(filename, source)}\n//# sourceURL=${pathToFileURL(filename).href}`;
      // `new Function` (not vm): the module runs in this realm, so its arrays, promises and errors are ours.
      // Only files the operator lists in langgraph.json get here, at start-up — never model output or request data.
      const run = new Function('exports', 'require', 'module', '__filename', '__dirname', code) as (...args: unknown[]) => void;
      run(module.exports, this.requireFor(filename), module, filename, path.dirname(filename));
      return module;
    } catch (err) {
      this.cache.delete(filename);
      throw err;
    }
  }

  private requireFor(filename: string): (specifier: string) => unknown {
    const own = createRequire(filename);
    const dir = path.dirname(filename);
    return (specifier: string) => {
      if (isPathSpecifier(specifier)) return this.loadFile(resolveLocal(dir, specifier, filename)).exports;
      try {
        return serviceRequire(specifier);
      } catch (err) {
        if (!isNotFound(err, specifier)) throw err;
      }
      return own(specifier) as unknown;
    };
  }

  private transpile(filename: string, source: string): string {
    const ext = path.extname(filename);
    if (ext === '.cjs') return source;
    // loaded on first use: a deployment without TypeScript or ESM graphs never loads the compiler
    this.swc ??= serviceRequire('@swc/core') as typeof Swc;
    const typescript = TYPESCRIPT.has(ext);
    return this.swc.transformSync(source, {
      filename,
      swcrc: false,
      configFile: false,
      sourceMaps: 'inline',
      isModule: ext === '.js' ? 'unknown' : true,
      jsc: {
        parser: typescript ? { syntax: 'typescript', decorators: true } : { syntax: 'ecmascript' },
        transform: typescript ? { legacyDecorator: true } : undefined,
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'commonjs' },
    }).code;
  }
}

function isPathSpecifier(s: string): boolean {
  return s === '.' || s === '..' || s.startsWith('./') || s.startsWith('../') || path.isAbsolute(s) || s.startsWith('file:');
}

function isFile(p: string): boolean {
  return existsSync(p) && statSync(p).isFile();
}

/** Node's resolution for a relative import, plus `./x.js` → `./x.ts` (TypeScript's NodeNext convention). */
function resolveLocal(dir: string, specifier: string, from: string): string {
  const base = specifier.startsWith('file:') ? new URL(specifier).pathname : path.resolve(dir, specifier);
  const ext = path.extname(base);
  const candidates = [
    base,
    ...(JS_TO_TS[ext] ?? []).map((ts) => base.slice(0, -ext.length) + ts),
    ...EXTENSIONS.map((e) => base + e),
    ...EXTENSIONS.map((e) => path.join(base, `index${e}`)),
  ];
  const found = candidates.find(isFile);
  if (!found) {
    const err = new Error(`Cannot find module '${specifier}' imported from ${from}`) as Error & { code: string };
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  return found;
}

function isNotFound(err: unknown, specifier: string): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'MODULE_NOT_FOUND' && typeof e.message === 'string' && e.message.includes(`'${specifier}'`);
}
