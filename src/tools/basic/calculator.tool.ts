import { tool } from '@langchain/core/tools';
import { all, create } from 'mathjs';
import { z } from 'zod';

const MAX_EXPRESSION = 500;

/** A mathjs instance with everything that could reach beyond arithmetic switched off. */
const math = create(all, {});
const evaluate = math.evaluate.bind(math);
const disabled = (name: string) => () => {
  throw new Error(`function ${name} is not allowed`);
};
math.import(
  Object.fromEntries(
    ['import', 'createUnit', 'evaluate', 'parse', 'simplify', 'derivative', 'resolve', 'reviver', 'compile'].map((n) => [n, disabled(n)]),
  ),
  { override: true },
);

/** Evaluates an arithmetic expression with a real parser (mathjs); never `eval`. Throws on bad input. */
export function calculate(expression: string): string {
  const expr = expression.trim().replace(/×/g, '*').replace(/÷/g, '/');
  if (!expr) throw new Error('empty expression');
  if (expr.length > MAX_EXPRESSION) throw new Error(`expression longer than ${MAX_EXPRESSION} characters`);
  const value: unknown = evaluate(expr);
  if (typeof value === 'function' || value === undefined) throw new Error('expression did not produce a value');
  const text = math.format(value as never, { precision: 14, lowerExp: -9, upperExp: 21 });
  if (text === 'NaN' || text === 'Infinity' || text === '-Infinity') throw new Error(`result is ${text}`);
  return text;
}

export const calculatorTool = tool(
  async ({ expression }: { expression: string }) => {
    try {
      return calculate(expression);
    } catch (err) {
      throw new Error(`calculator: ${(err as Error).message}`);
    }
  },
  {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression, e.g. "(12 + 3) * 4 / 5", "sqrt(16)", "2^10", "15% * 80".',
    schema: z.object({ expression: z.string().describe('the arithmetic expression to evaluate') }),
  },
);
