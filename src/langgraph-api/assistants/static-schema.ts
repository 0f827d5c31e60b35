import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

import type { GraphSchema } from './runtime-schema';

/** The schemas of a graph module, by graph: `graph` (the export), `graph|child`, `graph|child|grandchild`, … */
export type ModuleSchemas = Record<string, GraphSchema>;

/**
 * The worker that reads a graph module's TypeScript source: `getStaticGraphSchema` of
 * `@langchain/langgraph-api/schema` (the reference server's own parser, a public entry point) runs the
 * TypeScript compiler on the file and infers each state's JSON schema from its types. It is run here in the
 * worker's thread (`mainThread: true` means "in the caller's thread"), so the service's thread never compiles;
 * a native ES module import, as the package is ESM only.
 *
 * A graph folder that cannot resolve `@langchain/langgraph` (a `langgraph.json` without its own install) would
 * give the compiler no types, and empty schemas: the compiler then sees the service's `node_modules` as the
 * folder's (`overlay`: its file-system calls for `<folder>/node_modules/…` answered from the service's). The
 * compiler's diagnostics are collected, not printed, and sent back with the schemas.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const overlay = workerData.overlay;
if (overlay) {
  const sys = require(workerData.typescript).sys;
  const map = (p) => (typeof p === 'string' && (p === overlay.from || p.startsWith(overlay.from + '/')) ? overlay.to + p.slice(overlay.from.length) : p);
  for (const name of ['fileExists', 'directoryExists', 'readFile', 'realpath', 'getDirectories', 'readDirectory', 'getModifiedTime']) {
    const original = sys[name];
    if (typeof original === 'function') sys[name] = (p, ...rest) => original.call(sys, map(p), ...rest);
  }
}
const diagnostics = [];
console.log = (...args) => diagnostics.push(args.join(' ').trim());
import(pathToFileURL(workerData.entry).href)
  .then((parser) => parser.getStaticGraphSchema(workerData.spec, { mainThread: true }))
  .then(
    (schemas) => parentPort.postMessage({ schemas, diagnostics: diagnostics.filter(Boolean).slice(0, 50) }),
    (err) => parentPort.postMessage({ error: String((err && err.stack) || err) }),
  );
`;

/** the compiler's heap in the worker: it loads the typings of @langchain/core and @langchain/langgraph (~0.5 GB) */
const WORKER_HEAP_MB = 1536;

export interface StaticSchemaOptions {
  /** how long one module's parse may take; then it is abandoned (the worker ended) and the schemas are unknown */
  timeoutMs: number;
  /** told when a parse starts and how it ended (a first parse compiles LangGraph's typings: seconds) */
  log?: (line: string) => void;
}

/**
 * The static schemas of graph modules, computed on first request (never at start-up), one module at a time
 * (each parse holds a TypeScript program of ~0.5 GB), and kept per module and export: a module is parsed once
 * per process, unless its parse failed or timed out (then the next request tries again).
 */
export class StaticSchemas {
  private readonly cache = new Map<string, Promise<ModuleSchemas>>();
  private readonly running = new Set<Worker>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: StaticSchemaOptions) {}

  /** Ends the parse under way and refuses the queued ones: at shutdown, a parse no request waits for is not finished. */
  close(): void {
    this.closed = true;
    for (const worker of this.running) void worker.terminate();
  }

  /** The schemas of the graphs in `file`'s export `exportName`; rejects when the source cannot be parsed in time. */
  of(file: string, exportName: string): Promise<ModuleSchemas> {
    const key = `${file}\0${exportName}`;
    let found = this.cache.get(key);
    if (!found) {
      const { log, timeoutMs } = this.options;
      found = this.enqueue(async () => {
        if (this.closed) throw new Error('the service is shutting down');
        const started = Date.now();
        log?.(`graph schemas: reading the TypeScript types of ${file} (once per module; a first parse takes seconds)`);
        const schemas = await parseInWorker(file, exportName, timeoutMs, this.running);
        log?.(`graph schemas: the types of ${file} read in ${Date.now() - started} ms`);
        return schemas;
      });
      found.catch(() => this.cache.delete(key));
      this.cache.set(key, found);
    }
    return found;
  }

  private enqueue(parse: () => Promise<ModuleSchemas>): Promise<ModuleSchemas> {
    const next = this.queue.then(parse, parse);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** The root graph's schemas in a module's, and a subgraph's by its namespace (the root's when not found, as the reference does). */
export function moduleGraphSchema(schemas: ModuleSchemas, namespace?: string): GraphSchema | undefined {
  const root = Object.keys(schemas).find((k) => !k.includes('|'));
  if (root === undefined) return undefined;
  return (namespace ? schemas[`${root}|${namespace}`] : undefined) ?? schemas[root];
}

/** The service's `node_modules`: what a graph folder without its own `@langchain/langgraph` compiles against. */
const SERVICE_MODULES = path.resolve(path.dirname(require.resolve('@langchain/langgraph/package.json')), '../..');

/** `<folder>/node_modules` seen as the service's, when `@langchain/langgraph` cannot be resolved from the folder. */
export function modulesOverlay(file: string): { from: string; to: string } | null {
  const folder = path.dirname(file);
  try {
    createRequire(path.join(folder, 'graph.js')).resolve('@langchain/langgraph/package.json');
    return null;
  } catch {
    return { from: path.join(folder, 'node_modules'), to: SERVICE_MODULES };
  }
}

/**
 * The first package the graph's module imports that resolves neither from its folder nor from the service (what the
 * overlay would give it): the reason a user can act on when its types resolve nowhere, whatever order the compiler
 * reports its diagnostics in.
 */
export function unresolvedImport(file: string): string | undefined {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const specifiers = [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"./][^'"]*)['"]/g)].map((m) => m[1]);
  const fromFolder = createRequire(path.join(path.dirname(file), 'graph.js'));
  const fromService = createRequire(path.join(SERVICE_MODULES, 'graph.js'));
  return specifiers.find((spec) => !resolves(fromFolder, spec) && !resolves(fromService, spec));
}

function resolves(req: NodeJS.Require, specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  try {
    req.resolve(specifier);
    return true;
  } catch {
    try {
      // a package with only an `exports` map for `import` (ES modules): its package.json still resolves
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      req.resolve(`${name}/package.json`);
      return true;
    } catch {
      return false;
    }
  }
}

/** Schemas without a single property: the compiler resolved none of the state's types (the diagnostics say why). */
function inferredNothing(schemas: ModuleSchemas): boolean {
  return Object.values(schemas).every((s) => Object.keys((s.state as { properties?: object } | undefined)?.properties ?? {}).length === 0);
}

function parseInWorker(file: string, exportName: string, timeoutMs: number, running: Set<Worker>): Promise<ModuleSchemas> {
  const entry = require.resolve('@langchain/langgraph-api/schema');
  // the compiler the parser imports (its own install's), whose file system the overlay patches before the parser loads
  const typescript = createRequire(entry).resolve('typescript');
  const overlay = modulesOverlay(file);
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: { entry, typescript, overlay, spec: { sourceFile: file, exportSymbol: exportName } },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // a parse under way does not hold the process open at shutdown (the request that waits for it does, while it is served)
    worker.unref();
    running.add(worker);
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`schema extraction of ${file} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    const settle = (fn: () => void) => {
      running.delete(worker);
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    worker.on('message', (msg: { schemas?: ModuleSchemas; diagnostics?: string[]; error?: string }) =>
      settle(() => {
        if (!msg.schemas) return reject(new Error(msg.error ?? 'schema extraction failed'));
        if (!inferredNothing(msg.schemas)) return resolve(msg.schemas);
        // the reason a user can act on first (a module or name that does not resolve), else the compiler's first
        const missing = unresolvedImport(file);
        const why =
          (missing ? `Cannot find module '${missing}'` : undefined) ??
          msg.diagnostics?.find((d) => /Cannot find (module|name)/.test(d)) ??
          msg.diagnostics?.[0] ??
          'no diagnostics';
        reject(new Error(`the types of ${file} did not resolve, so no schema could be inferred (${why})`));
      }),
    );
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) => settle(() => reject(new Error(`schema extraction worker exited (${code})`))));
  });
}
