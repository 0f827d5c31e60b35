import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';

import { decideJson } from '../llm/decide-json';
import { LlmService } from '../llm/llm.service';
import { isAbortError } from '../llm/model-errors';
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
      const messages = [new SystemMessage(SCOPE_SYSTEM_PROMPT), new HumanMessage(scopeUserPrompt(spec.domain, message))];
      const verdict = await decideJson(model, messages, Verdict, { node: 'scope_validator', config });
      if (!verdict.ok) return { is_valid: true, reason: 'unreadable model verdict', decided_by: 'default' };
      return { ...verdict.value, decided_by: 'model' };
    } catch (err) {
      if (isAbortError(err, config.signal)) throw err;
      this.logger.warn({ msg: 'scope check by model failed; treating as in scope', err: (err as Error).message });
      return { is_valid: true, reason: 'model unavailable', decided_by: 'default' };
    }
  }
}

/** moved to src/llm/json.ts; re-exported for existing imports */
export { parseJson } from '../llm/json';
