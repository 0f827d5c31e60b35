import type { StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';

/** Seed 003's instructions for models without native tool calling. */
export const REACT_FORMAT_INSTRUCTIONS = `## 도구 사용 방법

사용 가능한 도구:
{catalogue}

도구를 사용하려면 다음 형식으로 응답하세요:
Thought: [현재 상황과 다음 행동에 대한 생각]
Action: [도구_이름]
Action Input: {"인자명": "값"}

최종 답변을 제공할 때는:
Thought: [최종 분석]
Final Answer: [사용자에게 전달할 완성된 답변]

중요 규칙:
1. Thought는 항상 Action이나 Final Answer 전에 작성하세요.
2. Action Input은 반드시 유효한 JSON 형식이어야 합니다.
3. 사용 가능한 도구 목록에 없는 도구는 사용하지 마세요.
4. 한 번에 하나의 Action만 작성하고, Observation은 직접 쓰지 마세요.`;

/** "- name: description\n  Arguments: arg (type, required): description" per tool. */
export function renderToolCatalogue(tools: StructuredToolInterface[]): string {
  return tools
    .map((t) => {
      const schema = toJsonSchema(t.schema) as {
        properties?: Record<string, { type?: string; description?: string }>;
        required?: string[];
      };
      const args = Object.entries(schema.properties ?? {}).map(
        ([name, p]) =>
          `${name} (${p.type ?? 'any'}${schema.required?.includes(name) ? ', required' : ''})${p.description ? `: ${p.description}` : ''}`,
      );
      return `- ${t.name}: ${t.description}\n  Arguments: ${args.length ? args.join('; ') : '(none)'}`;
    })
    .join('\n');
}

export function reactInstructions(tools: StructuredToolInterface[]): string {
  return REACT_FORMAT_INSTRUCTIONS.replace('{catalogue}', renderToolCatalogue(tools));
}

function toJsonSchema(schema: unknown): unknown {
  try {
    return z.toJSONSchema(schema as z.ZodType);
  } catch {
    return schema && typeof schema === 'object' ? schema : {};
  }
}
