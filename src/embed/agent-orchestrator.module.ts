import '../settings/all-settings'; // the settings slices AppConfig is built from

import {
  type DynamicModule,
  Inject,
  type MiddlewareConsumer,
  Module,
  type ModuleMetadata,
  type NestModule,
  UseFilters,
} from '@nestjs/common';
import { DiscoveryModule, RouterModule } from '@nestjs/core';

import { HOST_AGENTS } from '../agents/host-agent';
import { API_CONTROLLERS, ApiModule } from '../api/api.module';
import { AllExceptionsFilter } from '../api/filters/all-exceptions.filter';
import { inputGuard } from '../api/input-guard';
import { ApiKeyAuth } from '../auth/api-key-auth.service';
import { authMiddleware, type Refuse } from '../auth/auth.middleware';
import { AuthModule } from '../auth/auth.module';
import { proxyTrust, requestEdge } from '../auth/request-edge';
import { StreamTickets } from '../auth/stream-ticket';
import { TokenAuth } from '../auth/token-auth.service';
import { AppConfig } from '../config/app-config';
import { DatabaseModule } from '../database/database.module';
import { LanggraphCustomAuth } from '../langgraph-api/auth/custom-auth';
import { LANGGRAPH_API_CONTROLLERS, LangGraphApiModule } from '../langgraph-api/langgraph-api.module';
import { ObservabilityModule } from '../observability/observability.module';
import { OrchestratorModule } from '../orchestrator/orchestrator.module';
import { RunServiceModule } from '../orchestrator/run-service.module';
import { installPlatformPatches } from '../platform/install-platform-patches';
import { RunStoreModule } from '../runs/store/run-store.module';
import { HOST_TOOLS } from '../tools/host-tools';
import { AgentOrchestratorFacade } from './agent-orchestrator.facade';
import { HOST_EXTENSIONS, HostCatalog } from './host-catalog';
import { checkHostVersions } from './host-versions';
import { type AgentOrchestratorLayout, type AgentOrchestratorOptions, configOf } from './orchestrator-options';

export const ORCHESTRATOR_OPTIONS = Symbol('AGENT_ORCHESTRATOR_OPTIONS');

export interface AgentOrchestratorAsyncOptions extends AgentOrchestratorLayout, Pick<ModuleMetadata, 'imports'> {
  inject?: unknown[];
  useFactory: (...args: never[]) => AgentOrchestratorOptions | Promise<AgentOrchestratorOptions>;
}

const SERVICE_CONTROLLERS = [...API_CONTROLLERS, ...LANGGRAPH_API_CONTROLLERS];
/** the path the service's routes are mounted under in the host app (`http.prefix`), without slashes */
const HTTP_PREFIX = Symbol('AGENT_ORCHESTRATOR_HTTP_PREFIX');
/** answers what the authentication middleware refuses, as the controllers' filter answers their errors */
const errors = new AllExceptionsFilter();
let pipelineScoped = false;

/** The HTTP pipeline of the standalone app (app.factory.ts), scoped to the service's controllers inside a host app. */
@Module({})
class OrchestratorHttpModule implements NestModule {
  constructor(
    private readonly auth: ApiKeyAuth,
    private readonly config: AppConfig,
    private readonly tokens: TokenAuth,
    private readonly customAuth: LanggraphCustomAuth,
    private readonly tickets: StreamTickets,
    @Inject(HTTP_PREFIX) private readonly prefix: string,
  ) {}

  static register(layout: AppConfig, prefix: string): DynamicModule {
    // once per process: decorating again would stack a second filter on every controller (bodies are validated by
    // each route's own zod pipe, src/api/validation)
    if (!pipelineScoped) {
      pipelineScoped = true;
      for (const c of SERVICE_CONTROLLERS) {
        UseFilters(new AllExceptionsFilter())(c);
      }
    }
    const api = ApiModule.register(layout);
    const lg = LangGraphApiModule.register(layout);
    const routes = prefix ? [RouterModule.register([{ path: prefix, children: [ApiModule, LangGraphApiModule] }])] : [];
    return {
      module: OrchestratorHttpModule,
      imports: [AuthModule, api, lg, ...routes],
      providers: [{ provide: HTTP_PREFIX, useValue: prefix }],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    const refuse: Refuse = (err, req, res) => errors.answer(err, req, res);
    consumer
      .apply(
        // as in the standalone app (app.factory.ts): the request edge (canonical path, checked host, forwarded
        // headers only from TRUSTED_PROXIES; the host app's own `trust proxy` is left alone), then the one
        // authentication, langgraph.json's custom auth included
        requestEdge(proxyTrust(this.config.security.trustedProxies), refuse),
        authMiddleware(this.auth, this.config, {
          tokens: this.tokens,
          refuse,
          custom: this.customAuth,
          tickets: this.tickets,
          prefix: this.prefix,
        }),
        inputGuard(this.config.security.maxJsonDepth),
      )
      .forRoutes(...SERVICE_CONTROLLERS);
  }
}

/**
 * The service inside a host Nest application: its database, queue, agents and (optionally) HTTP API, plus
 * the host's own agents and tools. Inject `AgentOrchestrator` to run turns in-process. Building it installs the
 * service's library patches (installPlatformPatches): a host's process runs the variant the service ships.
 */
@Module({})
export class AgentOrchestratorModule {
  static forRoot(options: AgentOrchestratorOptions & AgentOrchestratorLayout = {}): DynamicModule {
    const { http, worker, queue, ...rest } = options;
    return AgentOrchestratorModule.forRootAsync({
      http,
      worker,
      queue: queue ?? (rest.redis ? 'redis' : 'inline'),
      useFactory: () => rest,
    });
  }

  static forRootAsync(async: AgentOrchestratorAsyncOptions): DynamicModule {
    checkHostVersions(); // a Nest or TypeORM outside the supported ranges stops here, named
    installPlatformPatches(); // the same library patches as the service's own processes
    const layout = { worker: async.worker ?? true, queue: async.queue === 'redis' ? ('redis' as const) : ('inline' as const) };
    // the module's shape (queue kind, worker, controllers) is decided here; every value comes from the factory
    const shape = new AppConfig({
      REDIS_URL: layout.queue === 'redis' ? 'redis://decided-by-the-options' : undefined,
      RUN_WORKER: String(layout.worker),
    });
    const http = async.http ? [OrchestratorHttpModule.register(shape, (async.http.prefix ?? '').replace(/^\/+|\/+$/g, ''))] : [];
    const core: DynamicModule = {
      module: OrchestratorCoreModule,
      global: true,
      imports: [...(async.imports ?? []), DiscoveryModule],
      providers: [
        { provide: ORCHESTRATOR_OPTIONS, inject: (async.inject ?? []) as never[], useFactory: async.useFactory },
        { provide: AppConfig, inject: [ORCHESTRATOR_OPTIONS], useFactory: (o: AgentOrchestratorOptions) => configOf(o, layout) },
        {
          provide: HOST_EXTENSIONS,
          inject: [ORCHESTRATOR_OPTIONS],
          useFactory: (o: AgentOrchestratorOptions) => ({ agents: o.agents ?? [], tools: o.tools ?? [] }),
        },
        HostCatalog,
        // the registries below read the host's agents and tools through ports of their own layer
        { provide: HOST_AGENTS, useExisting: HostCatalog },
        { provide: HOST_TOOLS, useExisting: HostCatalog },
      ],
      exports: [AppConfig, HostCatalog, HOST_AGENTS, HOST_TOOLS],
    };
    return {
      module: AgentOrchestratorModule,
      imports: [
        core,
        ObservabilityModule.forHost(),
        DatabaseModule,
        OrchestratorModule,
        RunStoreModule,
        RunServiceModule.register(shape),
        ...http,
      ],
      providers: [AgentOrchestratorFacade],
      exports: [AgentOrchestratorFacade],
    };
  }
}

/** AppConfig and the host's extensions, global like ConfigModule in the standalone app. */
@Module({})
class OrchestratorCoreModule {}
