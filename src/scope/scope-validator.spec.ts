import { FakeListChatModel } from '@langchain/core/utils/testing';

import { FakeChatModel } from '../../test/support/fake-chat-model';
import type { LlmService } from '../llm/llm.service';
import type { ScopeSpec } from './scope.types';
import { parseJson, ScopeValidator } from './scope-validator.service';

const spec: ScopeSpec = {
  domain: '계약서에 관한 질문',
  inScope: [/제\s*\d+\s*조/, /계약|해지|조항|별지/],
  outOfScope: [/날씨|레시피|주식|축구/],
  refusal: { en: 'Only questions about the contract.', ko: '계약서에 관한 질문에만 답할 수 있습니다.' },
};

const validator = (responses: string[] | null) => {
  const model = responses ? new FakeListChatModel({ responses }) : null;
  const spy = model ? jest.spyOn(model, 'invoke') : undefined;
  return { v: new ScopeValidator({ chatModel: () => model } as LlmService), spy };
};

describe('ScopeValidator', () => {
  it('decides by rules without a model call when the patterns are sure', async () => {
    const { v, spy } = validator(['{"is_valid": false, "reason": "x"}']);
    await expect(v.validate('제5조 알려줘', spec)).resolves.toMatchObject({ is_valid: true, decided_by: 'rules' });
    await expect(v.validate('안녕하세요', spec)).resolves.toMatchObject({ is_valid: true, decided_by: 'rules' });
    await expect(v.validate('오늘 서울 날씨 어때?', spec)).resolves.toMatchObject({ is_valid: false, decided_by: 'rules' });
    await expect(v.validate('날씨 때문에 계약 해지가 가능해?', spec)).resolves.toMatchObject({ is_valid: true });
    expect(spy).not.toHaveBeenCalled();
  });

  it('asks the model when the rules cannot tell, and reads its JSON', async () => {
    const { v, spy } = validator(['```json\n{"is_valid": false, "reason": "요리 질문"}\n```']);
    await expect(v.validate('김치찌개 끓이는 법', spec)).resolves.toEqual({ is_valid: false, reason: '요리 질문', decided_by: 'model' });
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('lets unsure messages through: no model, or an unreadable answer', async () => {
    await expect(validator(null).v.validate('김치찌개 끓이는 법', spec)).resolves.toMatchObject({ is_valid: true, decided_by: 'default' });
    await expect(validator(['I think so']).v.validate('김치찌개 끓이는 법', spec)).resolves.toMatchObject({
      is_valid: true,
      decided_by: 'default',
    });
  });

  it('asks in JSON mode, re-asks once after an unreadable answer, and treats a model failure as in scope', async () => {
    const model = new FakeChatModel(['음, 요리 질문 같네요.', 'Sure: {"is_valid": false, "reason": "요리"} done']);
    const v = new ScopeValidator({ chatModel: () => model } as Partial<LlmService> as LlmService);
    await expect(v.validate('김치찌개 끓이는 법', spec)).resolves.toEqual({ is_valid: false, reason: '요리', decided_by: 'model' });
    expect(model.calls.map((c) => (c.options.response_format as { type: string }).type)).toEqual(['json_schema', 'json_schema']);

    const down = new FakeChatModel([Object.assign(new Error('503 unavailable'), { status: 503 })]);
    const v2 = new ScopeValidator({ chatModel: () => down } as Partial<LlmService> as LlmService);
    await expect(v2.validate('김치찌개 끓이는 법', spec)).resolves.toMatchObject({
      is_valid: true,
      decided_by: 'default',
      reason: 'model unavailable',
    });
  });

  it('lets a cancellation through', async () => {
    const c = new AbortController();
    c.abort();
    const abort = Object.assign(new Error('Aborted'), { name: 'AbortError' });
    const v = new ScopeValidator({ chatModel: () => new FakeChatModel([abort]) } as Partial<LlmService> as LlmService);
    await expect(v.validate('김치찌개 끓이는 법', spec, { signal: c.signal })).rejects.toThrow();
  });

  it('parses JSON inside prose or fences', () => {
    expect(parseJson('Sure! {"a": 1} hope that helps')).toEqual({ a: 1 });
    expect(parseJson('```\n{"b": [1,2]}\n```')).toEqual({ b: [1, 2] });
    expect(parseJson('no json')).toBeUndefined();
  });
});
