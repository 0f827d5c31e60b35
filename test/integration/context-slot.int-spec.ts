import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';

import { fastRunnableContext } from '../../src/platform/fast-runnable-context';
import { describeContextSlot } from '../support/context-slot-cases';

// the slot cases again with the platform's patch of LangChain's context installed, as the service runs them
describeContextSlot('with the fast runnable context', () => {
  const runWithConfig = AsyncLocalStorageProviderSingleton.runWithConfig;
  expect(fastRunnableContext()).toBe(true);
  return () => {
    AsyncLocalStorageProviderSingleton.runWithConfig = runWithConfig;
  };
});
