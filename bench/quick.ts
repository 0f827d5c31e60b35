import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '../test/support/infra';
import { round } from './lib';
import { StreamingModelServer } from './support/streaming-model-server';
import { breakdownTable, sequential, startApi, throughput } from './turn.bench';

async function main() {
  const model = new StreamingModelServer();
  await model.start();
  const db = await createTestDatabase('benchq');
  const env: Record<string, string> = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniqueQueuePrefix('bq'), LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'bench', LLM_MAX_RETRIES: '0', PHASE_TIMINGS: 'true', ...(process.env.Q_ENV ? JSON.parse(process.env.Q_ENV) : {}) };
  const api = await startApi(env);
  try {
    const r = await sequential(api, model, Number(process.env.Q_TURNS ?? 100));
    console.log(JSON.stringify({ overhead: r.overhead, latency: r.latency, cpu: r.cpuMsPerTurn, streamed: r.streamed, req: r.requests }));
    console.log(breakdownTable(r.samples));
    if (process.env.Q_TPS) console.log('tps', round(await throughput(api, model, 10, 10)));
  } finally { await api.stop(); await model.stop(); await db.drop(); }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
