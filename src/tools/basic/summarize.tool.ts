import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

export const SUMMARIZE_PROMPT = '다음 글을 핵심만 3~5문장으로 요약하세요. 원문의 언어로 답하세요.';

/** summarize: model-backed; with no model configured, the first sentences (extractive). */
export function createSummarizeTool(model: () => BaseChatModel | null) {
  return tool(
    async ({ text }: { text: string }, config) => {
      const m = model();
      if (!m) return extractive(text);
      const reply = await m.invoke([new SystemMessage(SUMMARIZE_PROMPT), new HumanMessage(text.slice(0, 20_000))], config);
      return String(reply.content);
    },
    {
      name: 'summarize',
      description: 'Summarises a text (for example the output of an earlier step) in a few sentences.',
      schema: z.object({ text: z.string().describe('the text to summarise') }),
    },
  );
}

function extractive(text: string): string {
  const sentences = text.replace(/\s+/g, ' ').match(/[^.!?。]+[.!?。]?/g) ?? [text];
  return sentences.slice(0, 3).join(' ').trim().slice(0, 600);
}
