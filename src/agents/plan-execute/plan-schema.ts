import { z } from 'zod';

import type { RunError } from '../../database/entities';
import { parseJson } from '../../llm/json';

export const PlanStepSchema = z
  .object({
    step_id: z.number().int().positive(),
    tool: z.string().min(1),
    input: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    input_from: z
      .string()
      .regex(/^step_\d+$/, 'input_from must look like "step_1"')
      .optional(),
  })
  .strict()
  .refine((s) => s.input !== undefined || s.input_from !== undefined, 'a step needs input or input_from');

export const PlanSchema = z.array(PlanStepSchema).max(20);
export type PlanStep = z.infer<typeof PlanStepSchema>;

export const MAX_PLAN_STEPS = 20;

/**
 * Fail-closed plan validation: the model's text must be JSON (a list of steps, or `{"plan": [...]}`), match
 * the schema, use only tools of the manifest, and chain only to earlier steps. Anything else is an error code.
 */
export function validatePlan(
  text: string,
  manifest: readonly string[],
  doneIds: number[] = [],
): { plan: PlanStep[] } | { error: RunError } {
  const json = parseJson(text);
  if (json === undefined) return { error: { code: 'PLAN_INVALID_JSON', message: 'the plan is not valid JSON' } };
  return checkPlan(json, manifest, doneIds);
}

/** validatePlan for JSON already parsed (a JSON decision's value). */
export function checkPlan(json: unknown, manifest: readonly string[], doneIds: number[] = []): { plan: PlanStep[] } | { error: RunError } {
  const raw = unwrapPlan(json);
  if (raw === undefined) {
    return { error: { code: 'PLAN_SCHEMA', message: 'plan: expected a list of steps, {"plan": [...]} or {"steps": [...]}' } };
  }
  const parsed = PlanSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: { code: 'PLAN_SCHEMA', message: `${issue.path.join('.') || 'plan'}: ${issue.message}` } };
  }
  const ids = new Set<number>(doneIds);
  for (const step of parsed.data) {
    if (!manifest.includes(step.tool))
      return { error: { code: 'TOOL_NOT_ALLOWED', message: `tool "${step.tool}" is not in the manifest` } };
    if (step.input_from && !ids.has(Number(step.input_from.slice(5)))) {
      return {
        error: { code: 'PLAN_SCHEMA', message: `step ${step.step_id} takes input from ${step.input_from}, which does not come before it` },
      };
    }
    ids.add(step.step_id);
  }
  return { plan: parsed.data };
}

/**
 * The same plan in the shapes a model gives: the seed's bare list, or `{"plan": [...]}` / `{"steps": [...]}` (JSON
 * mode cannot return a top-level array). Any other shape is not a plan.
 */
function unwrapPlan(json: unknown): unknown {
  if (Array.isArray(json)) return json;
  if (!json || typeof json !== 'object') return undefined;
  const keys = Object.keys(json);
  if (keys.length !== 1 || (keys[0] !== 'plan' && keys[0] !== 'steps')) return undefined;
  return (json as Record<string, unknown>)[keys[0]];
}
