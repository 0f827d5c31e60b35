import type { Socket } from 'node:net';

import SentinelConnector from 'ioredis/built/connectors/SentinelConnector';

/** marks the patched method: installing twice keeps one wrapper */
const PATCHED = Symbol.for('agent-orchestrator.sentinelDetectorCleanup');

interface ConnectorInternals {
  stream?: Socket;
  failoverDetector?: { cleanup(): void } | null;
  initFailoverDetector(): Promise<void>;
}

/**
 * With `failoverDetector` (every Sentinel client: src/config/redis-options.ts), ioredis 5 opens subscriber
 * connections to the sentinels for each connection to the primary; `disconnect()` closes them, `quit()` — how
 * BullMQ closes its queues and workers — does not, and they reconnect forever: a process that closed everything
 * does not exit (redis/ioredis#1362; the upstream fix, #2198, is in no release up to 6.0.0). Installed, each
 * detector is cleaned up when the connection it watches closes (ioredis makes a new one at the next connect),
 * as the upstream fix does.
 *
 * Relies on (ioredis 5.11; the canary is sentinel-detector-cleanup.spec.ts): `initFailoverDetector` setting
 * `this.failoverDetector` before its first `await`, for the stream in `this.stream`. Installed by
 * installPlatformPatches.
 */
export function cleanUpSentinelDetectors(): boolean {
  const proto = SentinelConnector.prototype as unknown as ConnectorInternals;
  const init = proto.initFailoverDetector as ConnectorInternals['initFailoverDetector'] & { [PATCHED]?: true };
  if (typeof init !== 'function') return false;
  if (init[PATCHED]) return true;
  const patched = function (this: ConnectorInternals): Promise<void> {
    const stream = this.stream;
    const done = init.call(this);
    const detector = this.failoverDetector;
    if (detector && stream) {
      if (stream.destroyed) detector.cleanup();
      else stream.once('close', () => detector.cleanup());
    }
    return done;
  };
  proto.initFailoverDetector = Object.assign(patched, { [PATCHED]: true as const });
  return true;
}
