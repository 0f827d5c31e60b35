import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http } from '../support/test-app';

/** Tool executions are metered by tool and status, with their latency — whichever agent ran them. */
describe('tool execution metrics', () => {
  const svc = useService('agents_tool_metrics', { env: SCRIPTED_LLM, model: true });
  const { model } = svc;

  const metric = async (line: RegExp) => {
    const text = (await http(svc.url, 'GET', '/metrics')).body as string;
    return Number(
      text
        .split('\n')
        .find((l) => line.test(l))
        ?.split(' ')
        .at(-1) ?? 0,
    );
  };

  it('counts react, plan-execute and contract-qa tool runs by tool and status, with a latency histogram', async () => {
    model.enqueue(
      {
        toolCalls: [
          { name: 'calculator', args: { expression: '6*7' } },
          { name: 'calculator', args: { expression: '1/0' } },
        ],
      },
      { content: '42' },
    );
    await http(svc.url, 'POST', '/v1/chat', { agent: 'react', message: '6 곱하기 7, 그리고 1 나누기 0은?' });
    model.enqueue(
      { json: { intent: 'new_question', rewritten_query: '2^10', needs_tool: true, constraints: '' } },
      { json: [{ step_id: 1, tool: 'calculator', input: '2^10' }] },
      { content: '1024' },
    );
    await http(svc.url, 'POST', '/v1/chat', { agent: 'plan-execute', message: '2의 10제곱은 얼마야?' });
    const contract = readFileSync(join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md'), 'utf8');
    const { contract_id } = (await http(svc.url, 'POST', '/v1/contracts', { title: '계약', content: contract })).body;
    model.enqueue({ content: '제5조입니다.' });
    await http(svc.url, 'POST', '/v1/chat', { agent: 'contract-qa', contract_id, message: '제5조 알려줘' });

    expect(await metric(/^agent_tool_executions_total\{tool="calculator",status="success"\}/)).toBe(2);
    expect(await metric(/^agent_tool_executions_total\{tool="calculator",status="error"\}/)).toBe(1);
    expect(await metric(/^agent_tool_executions_total\{tool="get_article_by_index",status="success"\}/)).toBe(1);
    expect(await metric(/^agent_tool_duration_seconds_count\{tool="calculator"\}/)).toBe(3);
  });
});
