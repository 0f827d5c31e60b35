import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

// a tracer provider registered before the app starts: the app traces into it (as it would into a preloaded SDK)
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

/** One queued run on the real BullMQ worker: HTTP request → run → nodes → model and tool calls, one trace. */
describe('OpenTelemetry traces', () => {
  const svc = useService('obs_tracing', { env: { ...SCRIPTED_LLM, DEFAULT_AGENT: 'react' }, model: true, redis: true });

  it('carries the request trace through BullMQ into the worker and records the whole tree', async () => {
    svc.model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '42입니다.' });
    const queued = await svc.http('POST', '/v1/jobs', { message: '6 곱하기 7은?' });
    expect(queued.status).toBe(202);
    const runId = queued.body.job_id as string;
    await waitFor(async () => ((await svc.http('GET', `/v1/jobs/${runId}`)).body.status === 'completed' ? true : undefined));

    const run = await waitFor(async () =>
      exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent react' && s.attributes['agent.run_id'] === runId),
    );
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === run.spanContext().traceId);

    // the run continues the trace of the request that queued it (context carried in the job's data)
    const request = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /v1/jobs');
    expect(request).toBeDefined();
    expect(request!.attributes['http.response.status_code']).toBe(202);
    expect(parentOf(run)).toBe(idOf(request!));
    expect(run.attributes).toMatchObject({ 'gen_ai.agent.name': 'react', 'agent.run_mode': 'async' });

    // graph nodes under the run, model and tool calls under their node
    const nodes = spans.filter((s) => s.name.startsWith('node '));
    expect(nodes.length).toBeGreaterThanOrEqual(3);
    for (const n of nodes) expect(parentOf(n)).toBe(idOf(run));
    const chats = spans.filter((s) => s.name === 'chat m');
    expect(chats).toHaveLength(2);
    for (const c of chats) {
      const node = nodes.find((n) => idOf(n) === parentOf(c));
      expect(node?.attributes['langgraph.node']).toBe(c.attributes['langgraph.node']);
      expect(c.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' });
      expect(c.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(c.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    }
    const tool = spans.find((s) => s.name === 'execute_tool calculator');
    expect(tool?.attributes['gen_ai.tool.name']).toBe('calculator');
    const toolNode = nodes.find((n) => idOf(n) === parentOf(tool!));
    expect(toolNode).toBeDefined();
    expect(toolNode!.attributes['langgraph.node']).not.toBe(chats[0].attributes['langgraph.node']);
  });
});
