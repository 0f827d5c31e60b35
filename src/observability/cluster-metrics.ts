import cluster from 'node:cluster';

import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * `/metrics` with WEB_CONCURRENCY above 1: the API process that takes the scrape asks the primary, which
 * collects every API process's registry (prom-client's cluster protocol) and answers with their aggregate —
 * counters and histograms summed, gauges as each declares (`aggregator`). A scrape then sees the whole instance,
 * whichever process serves it.
 */
const REQUEST = 'agents:metrics';
const RESPONSE = 'agents:metrics:response';
const TIMEOUT_MS = 5000;

interface Message {
  type?: string;
  id?: number;
  text?: string;
  error?: string;
}

/** In the primary: answers the API processes' scrape requests with the aggregated metrics of all of them. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, msg: Message) => {
    if (msg?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: RESPONSE, id: msg.id, text }),
      (err: Error) => worker.send({ type: RESPONSE, id: msg.id, error: err.message }),
    );
  });
}

/**
 * In an API process of a cluster: `registry` answers the primary's collection, and the returned function is the
 * scrape (the whole instance's metrics). Undefined in a process of its own.
 */
export function clusterScrape(registry: Registry): (() => Promise<string>) | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  // constructing one installs prom-client's answer to the primary's collection in this process
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let seq = 0;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = ++seq;
      const done = () => {
        clearTimeout(timer);
        process.off('message', onMessage);
      };
      const onMessage = (msg: Message) => {
        if (msg?.type !== RESPONSE || msg.id !== id) return;
        done();
        if (msg.error !== undefined) reject(new Error(`cluster metrics: ${msg.error}`));
        else resolve(msg.text ?? '');
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error('cluster metrics: the primary did not answer'));
      }, TIMEOUT_MS);
      process.on('message', onMessage);
      process.send!({ type: REQUEST, id });
    });
}
