import type { RunEntity } from '../../database/entities';
import { ApiProperty, ApiPropertyOptional } from '../../platform/openapi-decorators';

export class TraceModelCall {
  @ApiProperty({ description: 'graph node that called the model', example: 'LlmNode' })
  node!: string;

  @ApiProperty({ description: 'call duration in ms (rate-limit retries included)', example: 412 })
  ms!: number;

  @ApiProperty({ example: 103 })
  prompt_tokens!: number;

  @ApiProperty({ example: 27 })
  completion_tokens!: number;

  @ApiPropertyOptional({ description: 'answered from the LLM cache (no request to the endpoint)', example: false })
  cached?: boolean;

  @ApiPropertyOptional({ description: 'the failure, when the call failed', example: '500 upstream error' })
  error?: string;

  @ApiProperty({ description: 'the attempt of the run that made the call (1 unless a worker crashed)', example: 1 })
  attempt!: number;
}

export class TraceNodeTiming {
  @ApiProperty({ example: 'ToolNode' })
  node!: string;

  @ApiProperty({ description: 'graph step, from 1', example: 2 })
  step!: number;

  @ApiProperty({ description: 'from the end of the previous step to this node’s update, in ms', example: 18 })
  ms!: number;
}

export class TraceUsage {
  @ApiProperty({ description: 'model calls that reached the endpoint', example: 2 })
  llm_calls!: number;

  @ApiProperty({ example: 263 })
  prompt_tokens!: number;

  @ApiProperty({ example: 30 })
  completion_tokens!: number;
}

/**
 * A run's trace, the same shape for every agent: lists an agent does not keep are empty, what only some
 * agents keep (explored articles, sub-agent outputs, the scope verdict …) is under `details`.
 */
export class RunTraceDto {
  @ApiProperty({ format: 'uuid' })
  run_id!: string;

  @ApiProperty({ example: 'react' })
  agent!: string;

  @ApiProperty({ enum: ['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted'], example: 'completed' })
  status!: string;

  @ApiProperty({
    description: 'the agent’s decisions in order (routing, classification, planning, evaluation)',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ step: 1, action: 'tool', tool: 'calculator', status: 'success' }],
  })
  decision_log!: Record<string, unknown>[];

  @ApiProperty({
    description: 'the plan (plan-execute): steps done and left',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ step_id: 1, tool: 'calculator', input: '6*7' }],
  })
  plan!: Record<string, unknown>[];

  @ApiProperty({
    description: 'executed plan steps with status and output (plan-execute)',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ step: { step_id: 1, tool: 'calculator', input: '6*7' }, status: 'success', output: '42' }],
  })
  past_steps!: Record<string, unknown>[];

  @ApiProperty({
    description: 'tool calls in order, with arguments and status',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ name: 'calculator', args: { expression: '6*7' }, status: 'success' }],
  })
  tool_history!: Record<string, unknown>[];

  @ApiProperty({ description: 'every model call with its node, timing and tokens', type: [TraceModelCall] })
  model_calls!: TraceModelCall[];

  @ApiProperty({ description: 'each graph step’s node and duration', type: [TraceNodeTiming] })
  node_timings!: TraceNodeTiming[];

  @ApiProperty({ type: TraceUsage })
  usage!: TraceUsage;

  @ApiProperty({ description: 'how many times the run was started (crash recovery)', example: 1 })
  attempts!: number;

  @ApiPropertyOptional({
    description: 'present when the run was stopped by its budget: limits, use and which budget was exceeded',
    type: 'object',
    additionalProperties: true,
    example: { limits: { toolCalls: 3 }, used: { tool_calls: 3, model_calls: 4 }, exceeded: 'tool_calls' },
  })
  budget?: Record<string, unknown>;

  @ApiPropertyOptional({
    description:
      'present when untrusted text was in the run: `inherited` (the thread was tainted before the run: an earlier turn or ' +
      'the thread it was copied from) and where the text came from',
    type: 'object',
    additionalProperties: true,
    example: { inherited: true, sources: ['earlier turns of this thread (knowledge base)', 'tool web_search'] },
  })
  taint?: Record<string, unknown>;

  @ApiProperty({
    description: 'what only some agents keep (contract-qa: explored_articles, …; supervisor: agent_outputs)',
    type: 'object',
    additionalProperties: true,
    example: { explored_articles: ['제5조'] },
  })
  details!: Record<string, unknown>;
}

/** a trace field read back from the stored jsonb: the array it was written as, or none */
const list = <T = Record<string, unknown>>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/** The stored trace of a run in the documented shape. */
export function toRunTrace(run: RunEntity): RunTraceDto {
  const { decision_log, tool_history, past_steps, plan, model_calls, node_timings, attempts, budget, taint, ...details } = (run.trace ??
    {}) as Record<string, unknown>;
  return {
    run_id: run.id,
    agent: run.agent,
    status: run.status,
    decision_log: list(decision_log),
    plan: list(plan),
    past_steps: list(past_steps),
    tool_history: list(tool_history),
    model_calls: list(model_calls).map((c) => ({ attempt: 1, ...c }) as TraceModelCall),
    node_timings: list<TraceNodeTiming>(node_timings),
    usage: { llm_calls: run.llmCalls ?? 0, prompt_tokens: run.promptTokens ?? 0, completion_tokens: run.completionTokens ?? 0 },
    attempts: typeof attempts === 'number' ? attempts : run.attempts,
    ...(budget && typeof budget === 'object' ? { budget: budget as Record<string, unknown> } : {}),
    ...(taint && typeof taint === 'object' ? { taint: taint as Record<string, unknown> } : {}),
    details,
  };
}
