import path from 'node:path';

import { Controller, Get } from '@nestjs/common';

/** the version in a package.json (a package's name, or a path), or undefined */
function versionOf(packageJson: string): string | undefined {
  try {
    return (require(packageJson) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** this service's package.json: src/langgraph-api/meta (sources) or dist/langgraph-api/meta (build) */
const OWN_PACKAGE = path.resolve(__dirname, '..', '..', '..', 'package.json');

/**
 * LangGraph Server `GET /info` (langgraphjs `libs/langgraph-api/src/api/meta.mts`): what the server is and
 * supports, as Studio and the SDK probe it. `version` is this service's; crons are supported; no LangSmith.
 */
@Controller()
export class InfoController {
  private readonly info = {
    version: versionOf(OWN_PACKAGE),
    langgraph_js_version: versionOf('@langchain/langgraph/package.json'),
    context: 'js',
    flags: { assistants: true, crons: true, langsmith: false, langsmith_tracing_replicas: true },
  };

  @Get('info')
  get() {
    return this.info;
  }

  /** LangGraph Server's liveness probe (open, like `/health`) */
  @Get('ok')
  ok() {
    return { ok: true };
  }
}
