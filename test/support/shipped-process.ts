/**
 * Jest setup for the suites that run the service in the test's process: the library patches `main.ts`,
 * `worker.ts` and the embeddable module install before building the app (installPlatformPatches), so those
 * suites run the code as it ships. The embed suites get them from `AgentOrchestratorModule` itself; the unit and
 * integration suites run without them (the patches' own specs install them where they test them).
 */
import { installPlatformPatches } from '../../src/platform/install-platform-patches';

installPlatformPatches();
