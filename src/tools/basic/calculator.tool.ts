import { tool } from '@langchain/core/tools';
import type { MathJsInstance } from 'mathjs';
import { z } from 'zod';

const MAX_EXPRESSION = 500;
/** what could reach beyond arithmetic */
const DISABLED = ['import', 'createUnit', 'evaluate', 'parse', 'simplify', 'derivative', 'resolve', 'reviver', 'compile'];

type Arithmetic = Pick<MathJsInstance, 'evaluate' | 'format'>;
let arithmetic: Promise<Arithmetic> | undefined;

/**
 * A mathjs instance with everything that could reach beyond arithmetic switched off, made at the first
 * calculation: loading mathjs builds every one of its functions (most of a second of CPU), which a process that
 * never calculates need not spend as it starts.
 */
function mathjs(): Promise<Arithmetic> {
  arithmetic ??= import('mathjs').then(({ all, create }) => {
    const math = create(all, {});
    const evaluate = math.evaluate.bind(math);
    const disabled = (name: string) => () => {
      throw new Error(`function ${name} is not allowed`);
    };
    math.import(Object.fromEntries(DISABLED.map((n) => [n, disabled(n)])), { override: true });
    return { evaluate, format: math.format.bind(math) };
  });
  return arithmetic;
}

/** Evaluates an arithmetic expression with a real parser (mathjs); never `eval`. Rejects bad input. */
export async function calculate(expression: string): Promise<string> {
  const expr = expression.trim().replace(/×/g, '*').replace(/÷/g, '/');
  if (!expr) throw new Error('empty expression');
  if (expr.length > MAX_EXPRESSION) throw new Error(`expression longer than ${MAX_EXPRESSION} characters`);
  const math = await mathjs();
  const value: unknown = math.evaluate(expr);
  if (typeof value === 'function' || value === undefined) throw new Error('expression did not produce a value');
  const text = math.format(value as never, { precision: 14, lowerExp: -9, upperExp: 21 });
  if (text === 'NaN' || text === 'Infinity' || text === '-Infinity') throw new Error(`result is ${text}`);
  return text;
}

export const calculatorTool = tool(
  async ({ expression }: { expression: string }) => {
    try {
      return await calculate(expression);
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
