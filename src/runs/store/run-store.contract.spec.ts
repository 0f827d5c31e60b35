import { InMemoryRunState } from './in-memory-run-store';
import { describeRunStoreContract } from './run-store.contract';

/** The run store's contract on the in-memory store (the Postgres run: test/integration/run-store-contract.int-spec.ts). */
describeRunStoreContract('in memory', async () => {
  const state = new InMemoryRunState();
  return { runs: state.runStore, sessions: state.sessionStore };
});
