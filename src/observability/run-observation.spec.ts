import { MetricsService } from './metrics.service';
import { RunObservation } from './run-observation';

/** Without a span (tracing off) an observation only meters: timings, metrics, and no prompt text built. */
describe('RunObservation', () => {
  const series = async (metrics: MetricsService, name: string) =>
    (await metrics.registry.getSingleMetricAsString(name)).split('\n').filter((l) => !l.startsWith('#'));

  it('times each step from the previous one and meters it by agent and node', async () => {
    const metrics = new MetricsService();
    const run = new RunObservation('react', metrics, undefined);
    run.graphStarted();
    run.nodesEnded(['input']);
    run.nodesEnded(['LlmNode']);
    run.nodesEnded(['LlmNode']);
    expect(run.nodeTimings.map(({ node, step }) => [node, step])).toEqual([
      ['input', 1],
      ['LlmNode', 2],
      ['LlmNode', 3],
    ]);
    for (const t of run.nodeTimings) expect(t.ms).toBeGreaterThanOrEqual(0);
    run.ended({ degraded: true });
    expect(await series(metrics, 'agent_node_duration_seconds')).toContain(
      'agent_node_duration_seconds_count{agent="react",node="LlmNode"} 2',
    );
    expect(await series(metrics, 'agent_run_iterations')).toContain('agent_run_iterations_count{agent="react"} 1');
    expect(await series(metrics, 'agent_run_iterations')).toContain('agent_run_iterations_bucket{le="3",agent="react"} 1');
    expect(await series(metrics, 'agent_degraded_answers_total')).toEqual(['agent_degraded_answers_total{agent="react"} 1']);
  });

  it('counts calls that reached the endpoint (not cache hits) and builds prompt text only for debug logs', async () => {
    const metrics = new MetricsService();
    const run = new RunObservation('assistant', metrics, undefined);
    const prompt = jest.fn(() => 'human: hi');
    const call = { node: 'agent', model: 'm', ms: 250, promptTokens: 10, completionTokens: 4, cached: false, prompt };
    run.modelCall(call);
    run.modelCall({ ...call, cached: true });
    run.modelCall({ ...call, promptTokens: 0, completionTokens: 0, error: '500' });
    expect(prompt).not.toHaveBeenCalled(); // LOG_LEVEL is not debug here
    const calls = await series(metrics, 'llm_calls_total');
    expect(calls).toContain('llm_calls_total{agent="assistant",node="agent",model="m",status="ok"} 1');
    expect(calls).toContain('llm_calls_total{agent="assistant",node="agent",model="m",status="error"} 1');
    expect(await series(metrics, 'llm_tokens_total')).toContain(
      'llm_tokens_total{agent="assistant",node="agent",model="m",kind="prompt"} 10',
    );
    expect(await series(metrics, 'llm_call_duration_seconds')).toContain(
      'llm_call_duration_seconds_sum{agent="assistant",node="agent",model="m"} 0.5',
    );
  });

  it('records queue wait for queued runs only, from start_at when that is later', async () => {
    const metrics = new MetricsService();
    const run = new RunObservation('react', metrics, undefined);
    run.started({ mode: 'sync', createdAt: new Date(Date.now() - 5000) });
    run.started({ mode: 'async', createdAt: new Date(Date.now() - 60_000), startAt: new Date(Date.now() - 1000).toISOString() });
    const wait = await series(metrics, 'agent_run_queue_wait_seconds');
    expect(wait).toContain('agent_run_queue_wait_seconds_count{agent="react"} 1');
    expect(wait).toContain('agent_run_queue_wait_seconds_bucket{le="0.5",agent="react"} 0');
    expect(wait).toContain('agent_run_queue_wait_seconds_bucket{le="2.5",agent="react"} 1');
  });
});
