/**
 * Focused measurement of the cost of a streamed chunk (issue #12): `node dist/main.js` (Postgres + Redis), N
 * streamed turns (`POST /v1/chat/stream`) at 20- and at 300-token answers, alternating blocks so machine load
 * hits both alike. Reports the API process's CPU per turn (from /proc) and per added token event, plus the
 * overhead p50 difference per token event as the `turn` bench computes it.
 * `node build/bench/bench/stream-chunk.bench.js` after `tsc -p tsconfig.bench.json` (STREAM_TURNS, STREAM_ROUNDS).
 */
import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { cpuSecondsOf, percentile, round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import { sseTurn, startApi } from './turn.bench';

const TURNS = Number(process.env.STREAM_TURNS ?? 50);
const ROUNDS = Number(process.env.STREAM_ROUNDS ?? 3);
/** STREAM_SIZES=300: only that answer size (e.g. for a --cpu-prof profile of one case) */
const SIZES = (process.env.STREAM_SIZES ?? '20,300').split(',').map(Number) as Array<20 | 300>;

async function main(): Promise<void> {
  const db = await createTestDatabase('streamchunk');
  const model = new StreamingModelServer();
  await model.start();
  const api = await startApi({
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix('streamchunk'),
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: 'bench',
    LLM_MAX_RETRIES: '0',
  });
  const acc = {
    20: { cpu: 0, turns: 0, tokens: [] as number[], over: [] as number[] },
    300: { cpu: 0, turns: 0, tokens: [] as number[], over: [] as number[] },
  };
  try {
    for (const n of SIZES) {
      model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: n };
      for (let i = 0; i < 20; i++) await sseTurn(api.url, model); // warm-up
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const n of SIZES) {
        model.behaviour = { ttftMs: 0, tokensPerSecond: 0, answerTokens: n };
        const cpu0 = cpuSecondsOf(api.pid);
        for (let i = 0; i < TURNS; i++) {
          const s = await sseTurn(api.url, model);
          acc[n].tokens.push(s.tokens);
          acc[n].over.push(s.total - s.model);
        }
        acc[n].cpu += cpuSecondsOf(api.pid) - cpu0;
        acc[n].turns += TURNS;
      }
    }
  } finally {
    await api.stop();
    await model.stop();
    await db.drop();
  }
  const cpu20 = (acc[20].cpu / acc[20].turns) * 1000;
  const cpu300 = (acc[300].cpu / acc[300].turns) * 1000;
  const t20 = percentile(acc[20].tokens, 50);
  const t300 = percentile(acc[300].tokens, 50);
  const o20 = percentile(acc[20].over, 50);
  const o300 = percentile(acc[300].over, 50);
  console.log(`API CPU per turn: ${round(cpu20, 2)} ms (20) → ${round(cpu300, 2)} ms (300); token events ${t20} → ${t300}`);
  console.log(`API CPU per added token event: ${round(((cpu300 - cpu20) / (t300 - t20)) * 1000, 1)} µs`);
  console.log(
    `overhead p50: ${round(o20, 2)} → ${round(o300, 2)} ms; per added token event ${round(((o300 - o20) / (t300 - t20)) * 1000, 1)} µs`,
  );
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
