import { tool } from '@langchain/core/tools';
import { z } from 'zod';

import { toolArgs } from './executor.node';

describe('toolArgs', () => {
  it("puts a step's string input in a zod tool's first required parameter", () => {
    const calc = tool(async () => '', {
      name: 'calculator',
      description: '',
      schema: z.object({ note: z.string().optional(), expression: z.string() }),
    });
    expect(toolArgs(calc, '1+1')).toEqual({ expression: '1+1' });
  });

  it("puts it in an MCP tool's first required parameter of its JSON Schema", () => {
    const jsonSchema = {
      type: 'object' as const,
      properties: { lang: { type: 'string' as const }, text: { type: 'string' as const } },
      required: ['text'],
    };
    const echo = tool(async () => '', { name: 'notes__echo', description: '', schema: jsonSchema });
    expect(toolArgs(echo, 'hi')).toEqual({ text: 'hi' });
    expect(toolArgs(echo, { text: 'as given' })).toEqual({ text: 'as given' });
  });
});
