/**
 * The floor of a react turn on the stack this service is built from, with nothing of the service: the same
 * ReAct + calculator graph (`StateGraph(MessagesAnnotation)`, a `ChatOpenAI` node bound to the tool, a prebuilt
 * `ToolNode`) invoked in this process, against the bench's streaming model server. Run as its own process by
 * floor.bench.ts so its CPU is its own. Env: MODEL_URL, CHECKPOINTER (none | memory | postgres), DB_URL,
 * TURNS, CLIENTS (0: no throughput run), STREAM=messages (the turn is streamed in LangGraph's `messages` mode, as a
 * client of a streamed turn gets it, token by token), CLIENTS_SECONDS (10): the throughput window, WINDOW_MARKS=1:
 * `mark start` / `mark end` lines on stdout around that window, each answered by a line on stdin (bench/turn-ab.ts
 * reads the other processes' CPU there, while this process's connections are still open). Prints one JSON line:
 * latencies (ms) of sequential turns, CPU per turn, streamed chunks per turn, turns/s at CLIENTS, and the window's
 * turns and CPU (the process's, and its main thread's from /proc). GRAPH=agent: the service's react graph instead of
 * LangGraph's (floor-stack.ts). SESSION=pairs: each client's every second turn continues the thread of its turn
 * before (reading that checkpoint first), as bench/turn-ab.ts's AB_SESSION=pairs does with sessions. PATCHES=1: the
 * service's library patches installed first (src/platform/install-platform-patches.ts).
 */
import { readFileSync } from 'node:fs';

import { installPlatformPatches } from '../../src/platform/install-platform-patches';
import { floorGraph } from './floor-stack';

/** WINDOW_MARKS: print the mark, then wait for the bench's line on stdin (it has read the other processes' CPU) */
async function mark(name: string): Promise<void> {
  if (process.env.WINDOW_MARKS !== '1') return;
  process.stdout.write(`mark ${name}\n`);
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      if (!d.includes(10)) return;
      process.stdin.off('data', onData);
      process.stdin.pause();
      resolve();
    };
    process.stdin.on('data', onData);
    process.stdin.resume(); // paused after the previous mark
  });
}

/** CPU ms of this process's main thread (the event loop), from /proc (Linux); 0 elsewhere */
function loopCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/** as many warm-up turns as the service gets in turn.bench.ts */
const WARMUP = 100;

async function main(): Promise<void> {
  if (process.env.PATCHES === '1') installPlatformPatches();
  const { graph, saver } = await floorGraph(
    process.env.MODEL_URL!,
    process.env.CHECKPOINTER ?? 'none',
    process.env.DB_URL,
    true,
    process.env.GRAPH ?? 'bare',
  );

  let seq = 0;
  let chunks = 0;
  const streamed = process.env.STREAM === 'messages';
  const pairs = process.env.SESSION === 'pairs';
  /** One turn; `thread`: the thread it continues (SESSION=pairs), else a new one. Returns its thread. */
  const turn = async (thread?: string) => {
    const n = ++seq;
    const input = { messages: [{ role: 'user', content: `What is 12 times 7? (turn ${n})` }] };
    // the durability of this service's react turns: one checkpoint when the turn ends
    const threadId = thread ?? `floor-${process.pid}-${n}`;
    const config = { configurable: { thread_id: threadId }, durability: 'exit' as const };
    if (streamed) {
      for await (const _chunk of await graph.stream(input, { ...config, streamMode: 'messages' })) chunks++;
      return threadId;
    }
    const out = await graph.invoke(input, config);
    if (out.messages.length !== (thread ? 8 : 4)) throw new Error(`unexpected turn: ${out.messages.length} messages`);
    return threadId;
  };
  /** A client's turns one after another: with SESSION=pairs, every second one continues the thread of the one before */
  const client = () => {
    let previous: string | undefined;
    let count = 0;
    return async () => {
      previous = await turn(pairs && count++ % 2 === 1 ? previous : undefined);
    };
  };
  const turns = Number(process.env.TURNS ?? 200);
  const alone = client();
  for (let i = 0; i < WARMUP; i++) await alone();
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < turns; i++) {
    const t0 = performance.now();
    await alone();
    latencies.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  const chunksPerTurn = chunks / (turns + WARMUP);
  const clients = Number(process.env.CLIENTS ?? 10);
  let done = 0;
  await mark('start');
  const windowCpu0 = process.cpuUsage();
  const loop0 = loopCpuMs();
  const end = performance.now() + (clients > 0 ? Number(process.env.CLIENTS_SECONDS ?? 10) * 1000 : 0);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const next = client();
      while (performance.now() < end) {
        await next();
        done++;
      }
    }),
  );
  const perSecond = done / ((performance.now() - t0) / 1000);
  const windowCpu = process.cpuUsage(windowCpu0);
  const clientsLoopMs = loopCpuMs() - loop0;
  await mark('end');
  process.stdout.write(
    `${JSON.stringify({
      latencies,
      cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / turns,
      chunksPerTurn,
      perSecond,
      clientTurns: done,
      clientsCpuMs: (windowCpu.user + windowCpu.system) / 1000,
      clientsLoopMs,
    })}\n`,
  );
  await saver?.end();
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  },
);
