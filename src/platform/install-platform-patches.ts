import { batchedStoreWakeUp } from './batched-store-wakeup';
import { closedStreamEnd } from './closed-stream-end';
import { fastRunnableContext } from './fast-runnable-context';
import { plainLogLines } from './plain-log-lines';
import { poolRandomValues } from './pooled-random-values';
import { cleanUpSentinelDetectors } from './sentinel-detector-cleanup';

/** What installPlatformPatches installed: the fast runnable context stays out while LangSmith tracing is on. */
export interface InstalledPatches {
  pooledRandomValues: boolean;
  fastRunnableContext: boolean;
  sentinelDetectorCleanup: boolean;
  /** Nest's default console logger receives one plain line for a line with fields (plain-log-lines.ts) */
  plainLogLines: boolean;
  /** LangGraph's batched store drains its queue when woken instead of polling it (batched-store-wakeup.ts) */
  batchedStoreWakeUp: boolean;
  /** LangChain's generator streams end without throwing (closed-stream-end.ts) */
  closedStreamEnd: boolean;
}

let installed: InstalledPatches | undefined;

/**
 * The process-wide library patches (`src/platform/`), installed before anything runs a graph by every way the
 * service starts — `main.ts`, `worker.ts`, the embeddable module (`AgentOrchestratorModule.forRoot` /
 * `forRootAsync`) and the test suites that run the service in-process — so all of them run one variant. The
 * other patches in `src/platform/` are not installed: they are classes and accessors the code that needs them
 * uses (PreparingClient, RowDumpingPostgresSaver, the ChatOpenAI accessors). Installed once; later calls return
 * what the first one did.
 */
export function installPlatformPatches(): InstalledPatches {
  if (!installed) {
    poolRandomValues();
    installed = {
      pooledRandomValues: true,
      fastRunnableContext: fastRunnableContext(),
      sentinelDetectorCleanup: cleanUpSentinelDetectors(),
      plainLogLines: plainLogLines(),
      batchedStoreWakeUp: batchedStoreWakeUp(),
      closedStreamEnd: closedStreamEnd(),
    };
  }
  return installed;
}
