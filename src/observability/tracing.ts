import {
  type Attributes,
  type Context,
  context,
  propagation,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTrace from '@opentelemetry/sdk-trace';

import type { AppConfig } from '../config/app-config';

/** A W3C trace context (`traceparent`, `tracestate`) as carried in a queued job's data. */
export type TraceCarrier = Record<string, string>;

let ownProvider: SdkTrace.TracerProvider | undefined;
let tracer: Tracer | undefined;

/** A tracer provider someone registered in this process before us (a preloaded SDK, a test's in-memory exporter). */
function providerRegistered(): boolean {
  const current = trace.getTracerProvider();
  return current instanceof ProxyTracerProvider && current.getDelegate() !== new ProxyTracerProvider().getDelegate();
}

/**
 * Turns tracing on when OTEL_EXPORTER_OTLP_ENDPOINT is set (spans batched to `<endpoint>/v1/traces` over
 * OTLP/HTTP) or when the process already has a tracer provider; otherwise every hook below is a no-op that
 * costs one check. Called once per process (a second app in the same process reuses the first's tracer).
 */
export function startTracing(config: AppConfig): void {
  if (!tracer && config.tracing.endpoint && !providerRegistered()) {
    ownProvider = otlpProvider(config.tracing.endpoint, config.tracing.serviceName);
    trace.setGlobalTracerProvider(ownProvider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
  if (!tracer && providerRegistered()) tracer = trace.getTracer('agent-orchestrator');
}

/**
 * This process's own tracer provider, its spans batched to `<endpoint>/v1/traces`. The SDK and the OTLP exporter
 * (with its protobuf transformer: some 170 modules) are loaded here, only where tracing is on.
 */
function otlpProvider(endpoint: string, serviceName: string): SdkTrace.TracerProvider {
  const { BatchSpanProcessor, TracerProvider } = require('@opentelemetry/sdk-trace') as typeof SdkTrace;
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof Resources;
  return new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }) })],
  });
}

/** Sends the spans still batched (at shutdown). */
export async function flushTracing(): Promise<void> {
  await ownProvider?.forceFlush();
}

/** The tracer when tracing is on. */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/** Starts a span under `parent` (default: the active context). */
export function startSpan(
  name: string,
  attributes: Attributes,
  opts: { parent?: Context; kind?: SpanKind; startTime?: number } = {},
): Span | undefined {
  return tracer?.startSpan(
    name,
    { attributes, kind: opts.kind ?? SpanKind.INTERNAL, startTime: opts.startTime },
    opts.parent ?? context.active(),
  );
}

export function endSpan(span: Span | undefined, error?: string, endTime?: number): void {
  if (!span) return;
  if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.slice(0, 200) });
  span.end(endTime);
}

/** A context whose active span is `span` (the parent of spans created after the fact). */
export function contextOf(span: Span | undefined): Context | undefined {
  return span ? trace.setSpan(context.active(), span) : undefined;
}

/** Runs `fn` with `span` as the active span (no span: just runs it). */
export function withSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/** The active trace context, to put in a job's data; undefined when tracing is off. */
export function traceCarrier(): TraceCarrier | undefined {
  if (!tracer) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length ? carrier : undefined;
}

/** Runs `fn` in the trace context of an incoming carrier (HTTP headers, job data). */
export function withTraceParent<T>(carrier: Record<string, unknown> | undefined, fn: () => T): T {
  if (!tracer || !carrier) return fn();
  return context.with(propagation.extract(context.active(), carrier), fn);
}

export { SpanKind };
