/**
 * `npm run dev`: the service from its sources (no build: it listens in seconds) in a child process, restarted
 * when a source file, the console's sources, `langgraph.json` or a file of a graph it names changes — as
 * `langgraphjs dev` reloads. The web console is bundled (about a second) into `dist/console-ui` before each start
 * and served from there (CONSOLE_DIR, unless set). Same settings as `npm start` (the environment, `.env` is not read).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, type FSWatcher, readFileSync, watch } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..');
/** LANGGRAPH_CONFIG as JSON is the graphs' defaults (see the agents settings): the config file is then ./langgraph.json */
const DEFAULTS_JSON = process.env.LANGGRAPH_CONFIG?.trimStart().startsWith('{') ? process.env.LANGGRAPH_CONFIG : undefined;
const CONFIG = path.resolve((!DEFAULTS_JSON && process.env.LANGGRAPH_CONFIG) || path.join(REPO, 'langgraph.json'));
/** where `npm run build` writes the console too; the sources' own default (src/console-ui) holds no page */
const CONSOLE_DIR = path.resolve(process.env.CONSOLE_DIR ?? path.join(REPO, 'dist', 'console-ui'));
const { buildConsole } = require('../console/build.js') as { buildConsole: (outdir: string) => Promise<string> };

/** src/, the langgraph.json and the folders of the graphs it names */
function watchedPaths(): string[] {
  const paths = [path.join(REPO, 'src'), path.join(REPO, 'console', 'src')];
  if (!existsSync(CONFIG)) return paths;
  paths.push(CONFIG);
  try {
    const graphs = (JSON.parse(readFileSync(CONFIG, 'utf8')) as { graphs?: Record<string, string> }).graphs ?? {};
    for (const spec of Object.values(graphs)) paths.push(path.dirname(path.resolve(path.dirname(CONFIG), spec.split(':')[0])));
  } catch {
    /* a langgraph.json that does not parse: the service says why at start */
  }
  return [...new Set(paths)].filter((p) => existsSync(p));
}

let child: ChildProcess | undefined;
let watchers: FSWatcher[] = [];
let timer: NodeJS.Timeout | undefined;

/** the console bundled from console/src (a CONSOLE_DIR set by the user is theirs: left alone) */
async function bundleConsole(): Promise<void> {
  if (process.env.CONSOLE_DIR) return;
  const started = Date.now();
  try {
    await buildConsole(CONSOLE_DIR);
    console.log(`[dev] console bundled into ${path.relative(REPO, CONSOLE_DIR)} in ${Date.now() - started} ms`);
  } catch (err) {
    console.error(`[dev] the console could not be bundled (/console answers CONSOLE_NOT_BUILT): ${(err as Error).message}`);
  }
}

async function start(): Promise<void> {
  await bundleConsole();
  child = spawn(process.execPath, ['-r', './test/support/swc-register.js', 'src/main.ts'], {
    cwd: REPO,
    env: {
      LOG_FORMAT: 'pretty',
      ...process.env,
      CONSOLE_DIR,
      LANGGRAPH_CONFIG: DEFAULTS_JSON ?? (existsSync(CONFIG) ? CONFIG : ''),
    },
    stdio: 'inherit',
  });
  for (const w of watchers) w.close();
  watchers = watchedPaths().map((p) => watch(p, { recursive: true }, (_event, file) => restartSoon(String(file ?? p))));
}

/** one restart for a burst of changes (an editor saves several files) */
function restartSoon(file: string): void {
  clearTimeout(timer);
  timer = setTimeout(() => {
    console.log(`[dev] ${file} changed: restarting`);
    const old = child;
    if (!old || old.exitCode !== null) return void start();
    old.once('exit', () => void start());
    old.kill('SIGTERM');
  }, 200);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const w of watchers) w.close();
    if (child && child.exitCode === null) child.once('exit', () => process.exit(0)).kill(signal);
    else process.exit(0);
  });
}
void start();
