import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';

import { decideJson } from '../../../llm/decide-json';
import { fill } from '../../shared/text';
import { needsToolsByRules } from '../classifier';
import { CHECK_TOOL_PROMPT, JSON_ANALYST } from '../prompts';
import type { ContractQaStateType, ContractQaUpdate } from '../state';

const ToolNeed = z.object({ needs_tools: z.boolean(), reasoning: z.coerce.string().default('') });

/** check_tool_needed: the LightweightClassifier, then the model's `{needs_tools, reasoning}` (temperature 0.2, 200 tokens). */
export function createCheckToolNeeded(deps: { model: (o: { temperature: number; maxTokens: number }) => BaseChatModel | null }) {
  return async function check_tool_needed(state: ContractQaStateType, config: LangGraphRunnableConfig): Promise<ContractQaUpdate> {
    let decision = needsToolsByRules(state.user_message);
    let by = 'rules';
    const model = decision ? null : deps.model({ temperature: 0.2, maxTokens: 200 });
    if (!decision && model) {
      const answer = await decideJson(
        model,
        [new SystemMessage(JSON_ANALYST), new HumanMessage(fill(CHECK_TOOL_PROMPT, { question: state.user_message }))],
        ToolNeed,
        { node: 'check_tool_needed', config },
      );
      if (answer.ok) {
        decision = answer.value;
        by = 'model';
      }
    }
    // undecided → look it up: a contract question answered without the contract would be a guess
    decision ??= { needs_tools: true, reasoning: 'undecided; consulting the contract' };
    if (!state.contract_id) decision = { needs_tools: false, reasoning: 'no contract_id given' };
    return {
      decision_log: [
        ...state.decision_log,
        { node: 'check_tool_needed', decision: decision.needs_tools ? 'use_tools' : 'direct_response', reasoning: decision.reasoning, by },
      ],
    };
  };
}

export const should_use_tools = (s: ContractQaStateType) =>
  s.decision_log.at(-1)?.decision === 'direct_response' ? 'direct_response' : 'use_tools';
