import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { turnLanguage } from '../../core/language';
import type { RunError } from '../../database/entities';
import { ContractsService } from '../../knowledge/contracts/contracts.service';
import { LlmService } from '../../llm/llm.service';
import { MetricsService } from '../../observability/metrics.service';
import { createContractTools } from '../../tools/contract/contract-tools';
import type { AgentDefinition, AgentFactory, AgentOutcome, TurnContext } from '../agent-definition';
import { endOnModelOutage, outageAnswer } from '../shared/outage';
import { ENGLISH_REFERENCE, ENGLISH_TOPIC_WORDS } from './classifier';
import { buildContractQaGraph } from './graph';
import { collected } from './nodes/respond.node';
import { type ContractQaStateType, type ContractQaUpdate, turnInput } from './state';

/** The model failed mid-turn: answer with the collected contract text, citing it. */
function outageEnd(
  s: ContractQaStateType,
  error: RunError,
  _cause: unknown,
  config: { configurable: Record<string, unknown> },
): ContractQaStateType {
  const language = turnLanguage(config, s.user_message);
  const { sources, context } = collected(s, language);
  const { text, degraded } = outageAnswer(context, language);
  return { ...s, error, final_response: text, sources, degraded };
}

/** Seed 000: autonomous plan → execute → evaluate over an uploaded contract, with scope validation first. */
@Injectable()
export class ContractQaAgentFactory implements AgentFactory {
  readonly name = 'contract-qa';

  constructor(
    private readonly llm: LlmService,
    private readonly contracts: ContractsService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  create(checkpointer: BaseCheckpointSaver): AgentDefinition<ContractQaStateType, ContractQaUpdate> {
    const compiled = buildContractQaGraph(
      { model: (o) => this.llm.chatModel(o), tools: createContractTools(this.contracts), toolRun: { metrics: this.metrics } },
      checkpointer,
    );
    return {
      name: this.name,
      description: 'Contract Q&A over an uploaded contract (contract_id): search, read articles, evaluate, answer with sources.',
      graph: endOnModelOutage(compiled, outageEnd),
      scope: {
        domain: '계약서(조항, 조건, 별지, 표준계약서 비교)에 관한 질문 (questions about the contract, in any language)',
        inScope: [
          /제\s*\d+\s*조|별지/,
          ENGLISH_REFERENCE,
          /계약|조항|해지|해제|위약|배상|대금|지급|비밀유지|분쟁|기간|갱신|의무|책임/,
          ENGLISH_TOPIC_WORDS,
        ],
        outOfScope: [/날씨|주식|주가|레시피|요리|축구|야구|영화|노래|게임|weather|recipe|stock price|football|soccer|movie|song/i],
        refusal: {
          en: 'Sorry, this agent only answers questions about the contract. Please ask about its articles or terms.',
          ko: '죄송합니다. 이 에이전트는 계약서에 관한 질문에만 답할 수 있습니다. 계약 조항이나 조건에 대해 물어봐 주세요.',
        },
      },
      buildInput: (turn: TurnContext) => turnInput(turn, { maxIterations: this.config.iterationLimits.contractQa }),
      toOutcome: (s: ContractQaStateType): AgentOutcome => {
        return {
          response: s.final_response,
          toolCalls: s.tool_history.map((h) => ({ name: h.tool, args: h.args, status: h.status })),
          sources: s.sources,
          error: s.error,
          metadata: {
            contract_id: s.contract_id,
            iterations: s.iteration_count,
            explored_articles: s.explored_articles,
            ...(s.degraded ? { degraded: true } : {}),
          },
          trace: {
            decision_log: s.decision_log,
            contract_structure: s.contract_structure,
            tool_history: s.tool_history,
            explored_articles: s.explored_articles,
            unexplored_articles: s.unexplored_articles,
            collected_info: s.collected_info.map((c) => ({ tool: c.tool, summary: c.summary })),
          },
        };
      },
    };
  }
}
