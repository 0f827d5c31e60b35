import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';

import { untrustedBodies } from '../../../tools/untrusted';
import { executeTool, sourcesOf, type ToolOutcome, type ToolRunOptions } from '../../shared/tool-executor';
import type { PlanStep } from '../plan-schema';
import type { PastStep, PlanExecuteStateType, PlanExecuteUpdate } from '../state';

/**
 * executor: runs one step per visit, with no model call of its own. `input_from: "step_N"` takes that step's
 * output. A tool error or a time-out becomes a `failure` step (the replanner decides what next).
 */
export function createExecutor(deps: { tools: () => StructuredToolInterface[]; stepTimeoutMs: number; toolRun?: ToolRunOptions }) {
  return async function executor(state: PlanExecuteStateType, config: RunnableConfig): Promise<PlanExecuteUpdate> {
    const [step, ...rest] = state.plan;
    const started = new Date();
    const tool = deps.tools().find((t) => t.name === step.tool);
    const input = resolveInput(step, state.past_steps);
    const outcome: ToolOutcome =
      'error' in input
        ? { ok: false, text: `Error: ${input.error}`, error: input.error, attempts: 0 }
        : await executeTool(tool, { name: step.tool, args: tool ? toolArgs(tool, input.value) : {} }, config, {
            ...deps.toolRun,
            timeoutMs: deps.stepTimeoutMs,
          });
    const record: PastStep = {
      step,
      status: outcome.ok ? 'success' : 'failure',
      output: outcome.text,
      started_at: started.toISOString(),
      duration_ms: Date.now() - started.getTime(),
      ...(outcome.ok && sourcesOf(outcome.artifact).length ? { sources: sourcesOf(outcome.artifact) } : {}),
    };
    return { plan: rest, past_steps: [...state.past_steps, record] };
  };
}

function resolveInput(step: PlanStep, past: PastStep[]): { value: unknown } | { error: string } {
  if (!step.input_from) return { value: step.input };
  const id = Number(step.input_from.slice('step_'.length));
  const source = [...past].reverse().find((p) => p.step.step_id === id && p.status === 'success');
  // the next tool gets the data itself; the markers are for prompts (the run's guard already counts it as tool output)
  return source ? { value: untrustedBodies(source.output) } : { error: `${step.input_from} has no successful output to use` };
}

/**
 * A string input goes to the tool's first required parameter (e.g. calculator.expression, summarize.text), read from
 * its zod schema or, for an MCP server's tool, its JSON Schema (`properties`, `required`).
 */
export function toolArgs(tool: StructuredToolInterface, input: unknown): Record<string, unknown> {
  if (input && typeof input === 'object') return input as Record<string, unknown>;
  return { [firstParameter(tool.schema)]: String(input ?? '') };
}

function firstParameter(schema: unknown): string {
  const shape = (schema as z.ZodObject<z.ZodRawShape>).shape;
  if (shape) return Object.keys(shape).find((k) => !(shape[k] instanceof z.ZodOptional)) ?? Object.keys(shape)[0] ?? 'input';
  const json = schema as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  const names = Object.keys(json?.properties ?? {});
  return json?.required?.find((k) => names.includes(k)) ?? names[0] ?? 'input';
}
