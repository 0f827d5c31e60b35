import { z } from 'zod';

import type { RunError } from '../../database/entities';

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
  let raw: unknown;
  try {
    raw = JSON.parse(stripFence(text));
  } catch {
    return { error: { code: 'PLAN_INVALID_JSON', message: 'the plan is not valid JSON' } };
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'plan' in raw) raw = (raw as { plan: unknown }).plan;
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

function stripFence(text: string): string {
  return text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '')
    .trim();
}
