import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';

import { AgentOrchestratorModule } from './agent-orchestrator.module';

describe('AgentOrchestratorModule', () => {
  it("building it installs the service's library patches: an embedding runs the variant main.ts and worker.ts run", () => {
    const runWithConfig = AsyncLocalStorageProviderSingleton.runWithConfig;
    const getRandomValues = globalThis.crypto.getRandomValues;
    try {
      AgentOrchestratorModule.forRoot({});
      expect(AsyncLocalStorageProviderSingleton.runWithConfig).not.toBe(runWithConfig);
      expect(globalThis.crypto.getRandomValues).not.toBe(getRandomValues);
    } finally {
      AsyncLocalStorageProviderSingleton.runWithConfig = runWithConfig;
      globalThis.crypto.getRandomValues = getRandomValues;
    }
  });
});
