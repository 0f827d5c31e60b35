/**
 * Summarise `.cpuprofile` files (node --cpu-prof) as markdown: the top frames by self time, and self time by
 * module (a package under node_modules, a folder of the service's dist/, node's internals, GC, idle), and by
 * the module that asked for it (node's internals and native code charged to the nearest package or service
 * folder up the stack: a socket write is charged to pg, ioredis or the HTTP server that made it).
 *
 *   node -r ./test/support/swc-register.js bench/profile-summary.ts [--skip-s 5] [--top 30] [--per N] /tmp/prof/CPU.*.cpuprofile
 *
 * The first table charges each sample to a part of a react turn (PARTS: the nearest frame up the stack that
 * names one); what runs with no such frame on its stack (a socket's reply parsed by pg or ioredis, timers) goes
 * to the client that parsed it, else to "other".
 *
 * `--skip-s`: leave out each profile's first seconds (start-up and warm-up); `--per N`: also give ms per unit
 * (e.g. the turns the profile covers) beside the share.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  /** µs of the monotonic clock (`process.hrtime` in the same machine's processes) */
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package, a folder of the service, node's own code, or a VM state. */
export function moduleOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  // the built service (dist/) or its sources run through swc (src/: bench/support/floor-graph.ts's agent graph)
  const own = /\/(?:dist|src)\/([^/]+)\//.exec(url);
  if (own) return `service: ${own[1]}`;
  return url.replace(/^file:\/\//, '');
}

/** A turn's parts, by the code that does them; the nearest frame to the sample that matches one wins. */
const PARTS: Array<[part: string, pattern: RegExp]> = [
  ['checkpoint writes (serialise + statement)', /checkpoint-writer|checkpoint-tables|row-dumping|langgraph-checkpoint/],
  ['admission (session + run row + lease, one statement)', /run-admission|run-accept-sql/],
  ['lease renewals', /turn-lease/],
  ['run records, usage and ledger (result statement)', /run-outcomes|\/runs\/store\/|persistent-usage|run-ledger|tool-ledger/],
  ['events (run event bus, Redis)', /\/dist\/events\//],
  ['LLM cache (Redis get/set)', /llm-cache/],
  ['auth', /\/dist\/auth\//],
  ['observability (phases, metrics, logs, spans)', /\/dist\/observability\/|prom-client|pino|@opentelemetry/],
  [
    'graph steps (LangGraph, model client, tool)',
    /@langchain\/|node_modules\/openai|mathjs|\/dist\/agents\/|\/dist\/llm\/|\/dist\/tools\/|graph-runner/,
  ],
  ['HTTP in/out, validation, response', /\/dist\/api\/|\/express\/|body-parser|\/router\/|raw-body|type-is|@nestjs|node:_http|node:http/],
];
/** What is left: the client that parsed a reply with no caller of ours on the stack. */
const FALLBACK: Array<[part: string, pattern: RegExp]> = [
  ['Postgres client, replies (pg)', /node_modules\/pg/],
  ['Redis client, replies (ioredis)', /ioredis/],
];

function partOf(stack: CallFrame[]): string {
  for (const rules of [PARTS, FALLBACK])
    for (const frame of stack) for (const [part, pattern] of rules) if (pattern.test(frame.url)) return part;
  return stack[0]?.functionName === '(garbage collector)' ? '(garbage collector)' : 'other (event loop, timers, native)';
}

function frameName(frame: CallFrame): string {
  const file = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
  return `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
}

/** Self time in µs by frame name and by module, after the first `skipUs` of the profile. */
export function selfTimes(
  profile: CpuProfile,
  skipUs: number,
  untilUs = Infinity,
): {
  byFrame: Map<string, number>;
  byModule: Map<string, number>;
  byCaller: Map<string, number>;
  byPart: Map<string, number>;
  totalUs: number;
} {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const callerOf = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const mod = moduleOf(nodes.get(at)!.callFrame);
      if (mod !== 'node internals' && !mod.startsWith('(')) return mod;
    }
    return moduleOf(nodes.get(id)!.callFrame);
  };
  const byFrame = new Map<string, number>();
  const byModule = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const byPart = new Map<string, number>();
  const stackOf = (id: number): CallFrame[] => {
    const out: CallFrame[] = [];
    for (let n: number | undefined = id; n !== undefined; n = parents.get(n)) out.push(nodes.get(n)!.callFrame);
    return out;
  };
  let at = 0;
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (at < skipUs || at > untilUs) return;
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') return;
    totalUs += dt;
    const name = frameName(frame);
    byFrame.set(name, (byFrame.get(name) ?? 0) + dt);
    const mod = moduleOf(frame);
    byModule.set(mod, (byModule.get(mod) ?? 0) + dt);
    const caller = callerOf(id);
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + dt);
    const part = partOf(stackOf(id));
    byPart.set(part, (byPart.get(part) ?? 0) + dt);
  });
  return { byFrame, byModule, byCaller, byPart, totalUs };
}

function table(title: string, m: Map<string, number>, totalUs: number, top: number, per: number): string {
  const rows = [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  const head = per
    ? `| ${title} | self ms | share | ms per unit (÷ ${per}) |\n|---|---|---|---|`
    : `| ${title} | self ms | share |\n|---|---|---|`;
  return [
    head,
    ...rows.map(([k, us]) => {
      const cells = [`\`${k.replace(/\|/g, '\\|')}\``, (us / 1000).toFixed(1), `${((us / totalUs) * 100).toFixed(1)} %`];
      if (per) cells.push((us / 1000 / per).toFixed(3));
      return `| ${cells.join(' | ')} |`;
    }),
  ].join('\n');
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function main(): void {
  const skipUs = arg('--skip-s', 0) * 1e6;
  const top = arg('--top', 30);
  const per = arg('--per', 0);
  const files = process.argv.slice(2).filter((a, i, all) => a.endsWith('.cpuprofile') && !all[i - 1]?.startsWith('--'));
  const byFrame = new Map<string, number>();
  const byModule = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const byPart = new Map<string, number>();
  let totalUs = 0;
  for (const f of files) {
    const s = selfTimes(JSON.parse(readFileSync(f, 'utf8')) as CpuProfile, skipUs);
    for (const [k, v] of s.byFrame) byFrame.set(k, (byFrame.get(k) ?? 0) + v);
    for (const [k, v] of s.byModule) byModule.set(k, (byModule.get(k) ?? 0) + v);
    for (const [k, v] of s.byCaller) byCaller.set(k, (byCaller.get(k) ?? 0) + v);
    for (const [k, v] of s.byPart) byPart.set(k, (byPart.get(k) ?? 0) + v);
    totalUs += s.totalUs;
  }
  process.stdout.write(
    `${files.length} profile(s), ${(totalUs / 1000).toFixed(0)} ms of CPU samples (idle and program left out)\n\n` +
      `${table('part of the turn', byPart, totalUs, top, per)}\n\n` +
      `${table('module (self time)', byModule, totalUs, top, per)}\n\n` +
      `${table('module that asked (node internals and native code charged to their caller)', byCaller, totalUs, top, per)}\n\n` +
      `${table('frame (self time)', byFrame, totalUs, top, per)}\n`,
  );
}

if (require.main === module) main();
