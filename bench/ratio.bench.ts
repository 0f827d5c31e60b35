/**
 * The react-turn goals as ratios to the floor, measured in alternating windows. The machine's speed drifts by
 * 20–30 % over minutes, so a service row and a floor row measured minutes apart give a ratio that moves as much as
 * the goals' margins; here each round measures the service, then the floor (LangGraph's react graph on the
 * official `PostgresSaver`, floor.bench.ts), back to back, and each goal is the median of the rounds' ratios.
 * A round, for each side: 100 warm-up turns, 100 sequential turns (CPU per turn from /proc, overhead p50), then
 * 10 clients for BENCH_RATIO_SECONDS (10). BENCH_RATIO_ROUNDS (3) rounds, each starting with the next side.
 *
 * A third side in each round splits the gap: the service's own react graph (the seed's five nodes and twelve state
 * fields, with the service's library patches) run the floor's way — in-process, no HTTP, on the official
 * `PostgresSaver`. Floor → that graph is what the agent's contract costs on the libraries; that graph → the service
 * is what the service adds around the graph it must run (HTTP, run records, events, the LLM cache, guards).
 */
import { TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { runFloor } from './floor.bench';
import { percentile, round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import type { Row } from './targets.bench';
import { sequential, startApi, throughput } from './turn.bench';

const ROUNDS = Number(process.env.BENCH_RATIO_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_RATIO_SECONDS ?? 10);
const TURNS = 100;

interface Side {
  cpuMs: number;
  p50: number;
  tps: number;
}

async function serviceRound(dbUrl: string, model: StreamingModelServer): Promise<Side> {
  const api = await startApi({
    DATABASE_URL: dbUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix('ratio'),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
  });
  try {
    const seq = await sequential(api, model, TURNS);
    const tps = await throughput(api, model, 10, SECONDS);
    return { cpuMs: seq.cpuMsPerTurn, p50: seq.overhead.p50, tps };
  } finally {
    await api.stop();
  }
}

/** The floor (LangGraph's react graph), or with `graph` the service's react graph with its patches, in-process */
async function floorRound(dbUrl: string, model: StreamingModelServer, graph: 'bare' | 'agent' = 'bare'): Promise<Side> {
  const served = model.served.length;
  const r = await runFloor({
    MODEL_URL: model.baseUrl,
    CHECKPOINTER: 'postgres',
    DB_URL: dbUrl,
    TURNS: String(TURNS),
    CLIENTS: '10',
    CLIENTS_SECONDS: String(SECONDS),
    GRAPH: graph,
    PATCHES: graph === 'agent' ? '1' : '0',
  });
  // as floor.bench.ts: the turn's latency minus the median model request's time, twice (two calls a turn)
  const modelMs =
    2 *
    percentile(
      model.served.slice(served).map((s) => s.ms),
      50,
    );
  return {
    cpuMs: r.cpuMsPerTurn,
    p50: percentile(
      r.latencies.map((l) => l - modelMs),
      50,
    ),
    tps: r.perSecond,
  };
}

const median = (xs: number[]) => percentile(xs, 50);

export async function benchRatios(dbUrl: string): Promise<Row[]> {
  const model = new StreamingModelServer();
  await model.start();
  const cmd = '`BENCH_ONLY=turn npm run bench`';
  const rounds: Round[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      // each round starts with another side, so no side always runs first (or last) in the machine's drift
      const sides: Array<[keyof Round, () => Promise<Side>]> = [
        ['service', () => serviceRound(dbUrl, model)],
        ['floor', () => floorRound(dbUrl, model)],
        ['graph', () => floorRound(dbUrl, model, 'agent')],
      ];
      const measured = {} as Round;
      for (let k = 0; k < sides.length; k++) {
        const [name, measure] = sides[(i + k) % sides.length];
        measured[name] = await measure();
      }
      rounds.push(measured);
    }
  } finally {
    await model.stop();
  }
  const each = (f: (r: Round) => number, digits = 2) => rounds.map((r) => round(f(r), digits)).join(', ');
  const cpu = (a: keyof Round, b: keyof Round) => (r: Round) => r[a].cpuMs / r[b].cpuMs;
  const p50 = (a: keyof Round, b: keyof Round) => (r: Round) => r[a].p50 - r[b].p50;
  const tps = (a: keyof Round, b: keyof Round) => (r: Round) => r[a].tps / r[b].tps;
  const ratio = (f: (r: Round) => number) => `${round(median(rounds.map(f)), 2)}× (rounds ${each(f)})`;
  const diff = (f: (r: Round) => number) => `${signed(median(rounds.map(f)))} ms (rounds ${each(f, 1)})`;
  /** one row: CPU per turn, overhead p50 and turns/s of side a against side b */
  const split = (a: keyof Round, b: keyof Round) => `CPU ${ratio(cpu(a, b))}; overhead p50 ${diff(p50(a, b))}; turns/s ${ratio(tps(a, b))}`;
  const head = `service ÷ floor (LangGraph's graph, official PostgresSaver), alternating windows, median of ${ROUNDS} rounds:`;
  return [
    [`${head} CPU per react turn`, ratio(cpu('service', 'floor')), '≤ 1.1×', cmd],
    [`… overhead p50, service − floor`, diff(p50('service', 'floor')), '≤ +3 ms', cmd],
    [`… turns/s at 10 clients`, ratio(tps('service', 'floor')), '≥ 0.8×', cmd],
    [
      "… the gap split, same rounds: the service's react graph with its patches, run as the floor is (in-process, official PostgresSaver) ÷ floor",
      split('graph', 'floor'),
      'report',
      cmd,
    ],
    ['… and the service ÷ that graph: what the service adds around the graph it runs', split('service', 'graph'), 'report', cmd],
  ];
}

interface Round {
  service: Side;
  floor: Side;
  graph: Side;
}

const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${round(ms, 1)}`;
