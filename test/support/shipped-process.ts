/**
 * Jest setup for the suites that run the service in the test's process: what `main.ts` and `worker.ts` install
 * before building the app (pooled random bytes, the fast runnable context), so those suites run the code as it
 * ships. The unit and integration suites, and the embedding, run without them.
 */
import { poolRandomValues } from '../../src/common/pooled-random';
import { fastRunnableContext } from '../../src/common/runnable-context';

poolRandomValues();
fastRunnableContext();
