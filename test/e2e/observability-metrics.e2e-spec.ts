import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { waitFor } from '../support/test-app';

const DASHBOARDS = join(__dirname, '..', '..', 'deploy', 'grafana');

/** `name{labels} value` lines of a scrape, keyed by the whole series text. */
function parse(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

/** Every metric the issue lists, scraped after real runs (sync, queued, tool calls, a model outage). */
describe('GET /metrics after runs', () => {
  const svc = useService('obs_metrics', { env: { ...SCRIPTED_LLM, DEFAULT_AGENT: 'react' }, model: true });
  let scrape: Map<string, number>;
  let text: string;
  const value = (series: string) => scrape.get(series);

  beforeAll(async () => {
    const { model } = svc;
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '42입니다.' });
    expect((await svc.http('POST', '/v1/chat', { message: '6 곱하기 7은?' })).status).toBe(200);
    // a model outage after a tool call: a degraded answer
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }] }, { fault: 'http_500' });
    expect((await svc.http('POST', '/v1/chat', { message: '2 더하기 2는?' })).body.metadata.degraded).toBe(true);
    // a queued run
    model.enqueue({ content: '안녕하세요.' });
    const job = (await svc.http('POST', '/v1/jobs', { message: '안녕' })).body.job_id as string;
    await waitFor(async () => ((await svc.http('GET', `/v1/jobs/${job}`)).body.status === 'completed' ? true : undefined));
    const res = await svc.http('GET', '/metrics');
    expect(res.headers.get('content-type')).toContain('text/plain');
    text = res.body as string;
    scrape = parse(text);
  });

  it('has HTTP latency by route, runs by agent and status, run duration, queue wait and depth', () => {
    expect(value('http_request_duration_seconds_count{method="POST",route="/v1/chat"}')).toBe(2);
    expect(value('http_requests_total{method="POST",route="/v1/jobs",status="202"}')).toBe(1);
    expect(value('agent_runs_total{agent="react",mode="sync",status="completed"}')).toBe(1);
    expect(value('agent_runs_total{agent="react",mode="sync",status="failed"}')).toBe(1);
    expect(value('agent_runs_total{agent="react",mode="async",status="completed"}')).toBe(1);
    expect(value('agent_run_duration_seconds_count{agent="react"}')).toBe(3);
    expect(value('agent_run_queue_wait_seconds_count{agent="react"}')).toBe(1);
    for (const state of ['waiting', 'active', 'delayed', 'failed']) expect(value(`agent_run_queue_jobs{state="${state}"}`)).toBe(0);
  });

  it('has model calls, tokens and latency by agent, node and model; cache figures', () => {
    const ok = { agent: 'react', node: 'LlmNode', model: 'm' };
    const labels = (l: Record<string, string>) =>
      `{${Object.entries(l)
        .map(([k, v]) => `${k}="${v}"`)
        .join(',')}}`;
    expect(value(`llm_calls_total${labels({ ...ok, status: 'ok' })}`)).toBe(4);
    expect(value(`llm_calls_total${labels({ ...ok, status: 'error' })}`)).toBe(1);
    expect(value(`llm_call_duration_seconds_count${labels(ok)}`)).toBe(5);
    expect(value(`llm_tokens_total${labels({ ...ok, kind: 'prompt' })}`)).toBeGreaterThan(0);
    expect(value(`llm_tokens_total${labels({ ...ok, kind: 'completion' })}`)).toBeGreaterThan(0);
    expect(value('llm_cache_hit_ratio')).toBe(0);
    expect(scrape.has('llm_cache_hits_total')).toBe(true);
    expect(scrape.has('llm_cache_misses_total')).toBe(true);
  });

  it('has tool executions, iterations per run, degraded answers and per-node durations', () => {
    expect(value('agent_tool_executions_total{tool="calculator",status="success"}')).toBe(2);
    expect(value('agent_tool_duration_seconds_count{tool="calculator"}')).toBe(2);
    expect(value('agent_degraded_answers_total{agent="react"}')).toBe(1);
    expect(value('agent_run_iterations_count{agent="react"}')).toBe(3);
    // input → LlmNode → ToolNode → LlmNode → response: a completed tool turn is at least 5 steps
    expect(value('agent_run_iterations_bucket{le="3",agent="react"}')).toBeLessThan(3);
    expect(value('agent_node_duration_seconds_count{agent="react",node="LlmNode"}')).toBeGreaterThanOrEqual(3);
  });

  it('names only existing metrics in the Grafana dashboards', () => {
    const files = readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    // registered metrics (a labelled counter has no series before its first increment), histograms' series too
    const names = new Set<string>();
    for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      names.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    }
    const promqlWords = new Set([
      'sum',
      'rate',
      'irate',
      'increase',
      'histogram_quantile',
      'by',
      'le',
      'without',
      'max',
      'avg',
      'topk',
      'clamp_min',
      'or',
      'vector',
    ]);
    let exprs = 0;
    for (const file of files) {
      const dashboard = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
      for (const target of dashboard.panels.flatMap((p) => p.targets ?? [])) {
        exprs += 1;
        // what is left without label matchers, ranges and `by (…)` clauses: functions and metric names
        const bare = target.expr.replace(/\{[^}]*\}|\[[^\]]*\]|\b(by|without)\s*\([^)]*\)/g, ' ');
        const metrics = (bare.match(/[a-z_:][a-z0-9_:]*/g) ?? []).filter((w) => !promqlWords.has(w) && /_/.test(w));
        expect(metrics.length).toBeGreaterThan(0);
        for (const m of metrics) expect(names.has(m) ? m : `${m} (in ${target.expr}) is not a metric`).toBe(m);
      }
    }
    expect(exprs).toBeGreaterThanOrEqual(10);
  });
});
