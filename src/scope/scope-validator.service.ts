import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';

import { LlmService } from '../llm/llm.service';
import { SCOPE_SYSTEM_PROMPT, scopeUserPrompt } from './prompts';
import type { ScopeSpec, ScopeVerdict } from './scope.types';
import { scopeByRules } from './scope-rules';

const Verdict = z.object({ is_valid: z.boolean(), reason: z.string().default('') });

/**
 * Is this message in the agent's domain? Rules first; the model (JSON `{is_valid, reason}`) only when the
 * rules can't tell; unsure (no model, model failure, unreadable answer) → in scope, so nothing valid is lost.
 */
@Injectable()
export class ScopeValidator {
  private readonly logger = new Logger(ScopeValidator.name);

  constructor(private readonly llm: LlmService) {}

  async validate(message: string, spec: ScopeSpec, config: RunnableConfig = {}): Promise<ScopeVerdict> {
    const ruled = scopeByRules(message, spec);
    if (ruled) return ruled;
    const model = this.llm.chatModel({ temperature: 0, maxTokens: 200 });
    if (!model) return { is_valid: true, reason: 'no model configured; rules could not decide', decided_by: 'default' };
    try {
      const reply = await model.invoke([new SystemMessage(SCOPE_SYSTEM_PROMPT), new HumanMessage(scopeUserPrompt(spec.domain, message))], {
        ...config,
        metadata: { ...config.metadata, langgraph_node: 'scope_validator' },
      });
      const parsed = Verdict.safeParse(parseJson(String(reply.content)));
      if (!parsed.success) return { is_valid: true, reason: 'unreadable model verdict', decided_by: 'default' };
      return { ...parsed.data, decided_by: 'model' };
    } catch (err) {
      if (config.signal?.aborted) throw err;
      this.logger.warn({ msg: 'scope check by model failed; treating as in scope', err: (err as Error).message });
      return { is_valid: true, reason: 'model unavailable', decided_by: 'default' };
    }
  }
}

/** The JSON object in a reply, also inside a ```json fence or surrounded by prose. */
export function parseJson(text: string): unknown {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/i)?.[1];
  const candidate = fenced ?? text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  try {
    return JSON.parse(candidate);
  } catch {
    return undefined;
  }
}
