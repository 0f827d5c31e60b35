import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { type LanggraphConfig, readLanggraphConfig } from '../../agents/custom-graphs/langgraph-config';
import { AppConfig } from '../../config/app-config';

const run = promisify(execFile);
const BUNDLE_TIMEOUT_MS = 120_000;

/** the files of one graph's UI bundle by name (`entrypoint.js`, `entrypoint.css`, …) */
export type UiFiles = ReadonlyMap<string, Uint8Array>;

/**
 * The generative-UI components of langgraph.json's `ui` (`"graph": "./path/ui.tsx"`), bundled for the browser
 * as LangGraph Platform bundles them: with `@langchain/langgraph-ui` (esbuild; React and the SDK left to the
 * page, plus `ui_config.shared`), each graph in a child process, started once the app is up so that bundling
 * never delays readiness. Until a bundle is ready its requests wait for it; one that fails is an error naming
 * the graph and the file, logged at start-up and answered to each request for it.
 */
@Injectable()
export class UiBundles implements OnApplicationBootstrap {
  private readonly logger = new Logger(UiBundles.name);
  private readonly bundles = new Map<string, Promise<UiFiles>>();

  constructor(private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    if (!this.config.langgraphConfig) return;
    const lg = readLanggraphConfig(this.config.langgraphConfig);
    for (const [graph, file] of Object.entries(lg.ui)) {
      const bundle = bundleUi(graph, file, lg);
      bundle.then(
        (files) => this.logger.log({ msg: 'UI bundled', graph, file, files: [...files.keys()] }),
        (err: Error) => this.logger.error(err.message),
      );
      this.bundles.set(graph, bundle);
    }
  }

  /** the graph's bundle (waiting for it while it is built); undefined when the graph has no `ui` */
  files(graph: string): Promise<UiFiles> | undefined {
    return this.bundles.get(graph);
  }
}

/** One graph's component bundled by the `langgraphjs-ui build` CLI into a temporary folder, read back into memory. */
async function bundleUi(graph: string, file: string, lg: LanggraphConfig): Promise<UiFiles> {
  const out = await mkdtemp(path.join(tmpdir(), 'lg-ui-'));
  try {
    const cli = path.join(path.dirname(require.resolve('@langchain/langgraph-ui/package.json')), 'dist', 'cli.mjs');
    await run(process.execPath, [cli, 'build', '--output', out], {
      cwd: lg.dir,
      timeout: BUNDLE_TIMEOUT_MS,
      env: {
        ...process.env,
        LANGGRAPH_UI: JSON.stringify({ [graph]: `./${path.relative(lg.dir, file).split(path.sep).join('/')}` }),
        LANGGRAPH_UI_CONFIG: JSON.stringify({ shared: lg.uiShared }),
      },
    });
    const folder = path.join(out, 'public', graph);
    const names = await readdir(folder);
    return new Map(await Promise.all(names.map(async (n) => [n, new Uint8Array(await readFile(path.join(folder, n)))] as const)));
  } catch (err) {
    const e = err as Error & { stderr?: string };
    const why = (e.stderr?.trim() || e.message).split('\n').slice(-20).join('\n');
    throw new Error(`Cannot bundle the UI of graph "${graph}" (${file}) from LANGGRAPH_CONFIG ${lg.path}: ${why}`, { cause: err });
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
