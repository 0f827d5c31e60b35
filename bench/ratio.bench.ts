/**
 * The react-turn goals as ratios to the floor, measured in alternating windows. The machine's speed drifts by
 * 20–30 % over minutes, so a service row and a floor row measured minutes apart give a ratio that moves as much as
 * the goals' margins; here each round measures the service, then the floor (LangGraph's react graph on the
 * official `PostgresSaver`, floor.bench.ts), back to back, and each goal is the median of the rounds' ratios.
 * A round, for each side: 100 warm-up turns, 100 sequential turns (CPU per turn from /proc, overhead p50), then
 * 10 clients for BENCH_RATIO_SECONDS (10). BENCH_RATIO_ROUNDS (3) rounds.
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

async function floorRound(dbUrl: string, model: StreamingModelServer): Promise<Side> {
  const served = model.served.length;
  const r = await runFloor({
    MODEL_URL: model.baseUrl,
    CHECKPOINTER: 'postgres',
    DB_URL: dbUrl,
    TURNS: String(TURNS),
    CLIENTS: '10',
    CLIENTS_SECONDS: String(SECONDS),
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
  const rounds: Array<{ service: Side; floor: Side }> = [];
  try {
    for (let i = 0; i < ROUNDS; i++) rounds.push({ service: await serviceRound(dbUrl, model), floor: await floorRound(dbUrl, model) });
  } finally {
    await model.stop();
  }
  const each = (f: (r: { service: Side; floor: Side }) => number, digits = 2) => rounds.map((r) => round(f(r), digits)).join(', ');
  const cpu = (r: { service: Side; floor: Side }) => r.service.cpuMs / r.floor.cpuMs;
  const p50 = (r: { service: Side; floor: Side }) => r.service.p50 - r.floor.p50;
  const tps = (r: { service: Side; floor: Side }) => r.service.tps / r.floor.tps;
  const head = `service ÷ floor (LangGraph's graph, official PostgresSaver), alternating windows, median of ${ROUNDS} rounds:`;
  return [
    [`${head} CPU per react turn`, `${round(median(rounds.map(cpu)), 2)}× (rounds ${each(cpu)})`, '≤ 1.1×', cmd],
    [`… overhead p50, service − floor`, `+${round(median(rounds.map(p50)), 1)} ms (rounds ${each(p50, 1)})`, '≤ +3 ms', cmd],
    [`… turns/s at 10 clients`, `${round(median(rounds.map(tps)), 2)}× (rounds ${each(tps)})`, '≥ 0.8×', cmd],
  ];
}
