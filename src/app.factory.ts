import 'reflect-metadata';
import './settings/all-settings'; // the settings slices AppConfig is built from

import { ConsoleLogger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';

import { answerClientErrors } from './api/client-error';
import { AllExceptionsFilter } from './api/filters/all-exceptions.filter';
import { contentTypeGuard, inputGuard } from './api/input-guard';
import { createOpenApiDocument } from './api/openapi';
import { securityHeaders } from './api/security-headers';
import { AppModule } from './app.module';
import { ApiKeyAuth } from './auth/api-key-auth.service';
import { authMiddleware, type Refuse } from './auth/auth.middleware';
import { proxyTrust, requestEdge } from './auth/request-edge';
import { StreamTickets } from './auth/stream-ticket';
import { TokenAuth } from './auth/token-auth.service';
import { AppConfig } from './config/app-config';
import { type Env, resolveConfig } from './config/config-source';
import { ApiExpressAdapter } from './http/api-express-adapter';
import { LanggraphCustomAuth } from './langgraph-api/auth/custom-auth';
import { CustomHttpApp } from './langgraph-api/http-app/custom-http-app';
import { uiAssets } from './langgraph-api/ui/ui.controller';
import { UiBundles } from './langgraph-api/ui/ui-bundles';
import { installMemoryStatsSignal, shutdownSignals } from './observability/memory-stats-signal';
import { phaseTimings } from './observability/phases';
import { requestContext } from './observability/request-context.middleware';

/**
 * Builds the HTTP application (used by main.ts, the e2e tests and the benchmarks): from the process's AppConfig,
 * or from an environment (tests), read once here and passed down.
 */
export async function createApp(source: AppConfig | Env = process.env): Promise<INestApplication> {
  const config = resolveConfig(source);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), new ApiExpressAdapter(), {
    bufferLogs: true,
    // what start-up logs before pino takes over (and all of it when the start fails): JSON lines unless LOG_FORMAT=pretty
    ...(config.logFormat === 'pretty' ? {} : { logger: new ConsoleLogger({ json: true }) }),
    bodyParser: false,
    abortOnError: false,
  });
  // in this order: the request edge (400 for an ambiguous path or a bad host), security headers, CORS (preflights answered without a key), the generative-UI bundles'
  // files (public: a page's <script src> sends no key), the API key or token, the request's
  // id, log context and span, langgraph.json's http.app (behind the key: it cannot open a route), the content
  // type (415), the JSON parser, then NUL / lone surrogates / depth / prototype keys (400) before any validator
  app.useLogger(app.get(Logger));
  answerClientErrors(app.getHttpServer());
  const errors = new AllExceptionsFilter();
  const refuse: Refuse = (err, req, res) => errors.answer(err, req, res);
  // first of all: one canonical path and a well-formed host for every layer below, forwarded headers only from
  // TRUSTED_PROXIES (Express's own `trust proxy` follows the same list, for req.protocol and req.ip)
  const trusted = proxyTrust(config.security.trustedProxies);
  app.set('trust proxy', (address: string) => trusted(address));
  app.disable('x-powered-by'); // never sent (securityHeaders removes it too): not set to be removed on each request
  app.use(requestEdge(trusted, refuse));
  app.use(securityHeaders(config.security.upgradeInsecureRequests));
  if (config.security.corsOrigins.length > 0) app.enableCors({ origin: config.security.corsOrigins, maxAge: 600 });
  app.use(uiAssets(app.get(UiBundles)));
  // the one authentication: exactly one principal per request (a key, a token user, or langgraph.json's custom auth)
  app.use(
    authMiddleware(app.get(ApiKeyAuth), config, {
      tokens: app.get(TokenAuth),
      refuse,
      custom: app.get(LanggraphCustomAuth),
      tickets: app.get(StreamTickets),
    }),
  );
  app.use(requestContext);
  const httpApp = app.get(CustomHttpApp);
  httpApp.attach(app.getHttpServer());
  app.use(httpApp.middleware());
  app.use(contentTypeGuard);
  app.useBodyParser('json', { limit: config.maxBodyBytes });
  app.use(inputGuard(config.security.maxJsonDepth));
  if (config.phaseTimings) app.use(phaseTimings);
  app.useGlobalFilters(errors);
  app.enableShutdownHooks(shutdownSignals(config.memoryStatsFile));
  installMemoryStatsSignal(config.memoryStatsFile);
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app), { jsonDocumentUrl: 'docs/openapi.json' });
  return app;
}
