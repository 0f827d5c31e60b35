import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { isGraphInterrupt } from '@langchain/langgraph';
import { z } from 'zod';

import { chargeToolCall } from '../../shared/tool-budget';
import type { PlanStep } from '../plan-schema';
import type { PastStep, PlanExecuteStateType, PlanExecuteUpdate } from '../state';

/**
 * executor: runs one step per visit, with no model call of its own. `input_from: "step_N"` takes that step's
 * output. A tool error or a time-out becomes a `failure` step (the replanner decides what next).
 */
export function createExecutor(deps: { tools: () => StructuredToolInterface[]; stepTimeoutMs: number }) {
  return async function executor(state: PlanExecuteStateType, config: RunnableConfig): Promise<PlanExecuteUpdate> {
    const [step, ...rest] = state.plan;
    const started = new Date();
    let status: PastStep['status'] = 'success';
    let output: string;
    try {
      const tool = deps.tools().find((t) => t.name === step.tool);
      if (!tool) throw new Error(`tool "${step.tool}" is not available`);
      const input = resolveInput(step, state.past_steps);
      chargeToolCall(config); // the run's tool-call budget (throws when spent: a failed step)
      output = await withTimeout(tool.invoke(toolArgs(tool, input), config), deps.stepTimeoutMs, step.tool);
      output = typeof output === 'string' ? output : JSON.stringify(output);
    } catch (err) {
      if (config.signal?.aborted || isGraphInterrupt(err)) throw err; // an approval pause is not a failure
      status = 'failure';
      output = `Error: ${(err as Error).message}`;
    }
    const record: PastStep = {
      step,
      status,
      output: output.slice(0, 8000),
      started_at: started.toISOString(),
      duration_ms: Date.now() - started.getTime(),
    };
    return { plan: rest, past_steps: [...state.past_steps, record] };
  };
}

function resolveInput(step: PlanStep, past: PastStep[]): unknown {
  if (!step.input_from) return step.input;
  const id = Number(step.input_from.slice('step_'.length));
  const source = [...past].reverse().find((p) => p.step.step_id === id && p.status === 'success');
  if (!source) throw new Error(`${step.input_from} has no successful output to use`);
  return source.output;
}

/** A string input goes to the tool's first string parameter (e.g. calculator.expression, summarize.text). */
export function toolArgs(tool: StructuredToolInterface, input: unknown): Record<string, unknown> {
  if (input && typeof input === 'object') return input as Record<string, unknown>;
  const shape = (tool.schema as z.ZodObject<z.ZodRawShape>).shape ?? {};
  const key = Object.keys(shape).find((k) => !(shape[k] instanceof z.ZodOptional)) ?? Object.keys(shape)[0] ?? 'input';
  return { [key]: String(input ?? '') };
}

function withTimeout<T>(p: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${name} timed out after ${ms} ms`)), ms))),
  ]);
}
