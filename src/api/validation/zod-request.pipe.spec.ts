import { BadRequestException } from '@nestjs/common';

import { ChatRequestSchema } from '../dto/chat-request.dto';
import { ContractListQuerySchema, CreateContractSchema } from '../dto/contract.dto';
import { CreateDocumentSchema } from '../dto/document.dto';
import { SessionListQuerySchema } from '../dto/session-list.dto';
import { ZodRequestPipe } from './zod-request.pipe';

/** the messages a refused value gets (the 400 `VALIDATION_FAILED` body joins them), or the parsed value */
function check(schema: ConstructorParameters<typeof ZodRequestPipe>[0], value: unknown): { ok: unknown } | { refused: string[] } {
  try {
    return { ok: new ZodRequestPipe(schema).transform(value) };
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestException);
    expect((err as BadRequestException).getStatus()).toBe(400);
    return { refused: ((err as BadRequestException).getResponse() as { message: string[] }).message };
  }
}

describe('REST v1 request schemas (zod)', () => {
  describe('chat body', () => {
    it.each([
      ['missing message', {}, ['message must be a string']],
      ['empty message', { message: '' }, ['message must not be empty or blank']],
      ['blank message', { message: ' \n\t ' }, ['message must not be empty or blank']],
      ['non-string message', { message: 42 }, ['message must be a string']],
      ['unknown field', { message: 'hi', temperature: 2 }, ['property temperature should not exist']],
      ['two unknown fields', { message: 'hi', a: 1, b: 2 }, ['property a should not exist', 'property b should not exist']],
      ['malformed session id', { message: 'hi', session_id: 'not ok!' }, [expect.stringMatching(/^session_id must be 1–128/)]],
      ['session id over 128 chars', { message: 'hi', session_id: 'a'.repeat(129) }, [expect.stringMatching(/^session_id/)]],
      ['empty agent', { message: 'hi', agent: '' }, ['agent must not be empty']],
      ['agent over 64 chars', { message: 'hi', agent: 'a'.repeat(65) }, ['agent must be shorter than or equal to 64 characters']],
      [
        'contract id over 128 chars',
        { message: 'hi', contract_id: 'c'.repeat(129) },
        [expect.stringMatching(/^contract_id must be shorter/)],
      ],
      ['allow_tools not an array', { message: 'hi', allow_tools: 'python_repl' }, ['allow_tools must be an array']],
      ['allow_tools over 32', { message: 'hi', allow_tools: Array(33).fill('t') }, ['allow_tools must contain no more than 32 elements']],
      [
        'allow_tools with a number and a long name',
        { message: 'hi', allow_tools: ['ok', 3, 'x'.repeat(65)] },
        ['each value in allow_tools must be a string', 'each value in allow_tools must be shorter than or equal to 64 characters'],
      ],
      ['metadata an array', { message: 'hi', metadata: [1] }, ['metadata must be an object']],
      ['metadata a string', { message: 'hi', metadata: 'x' }, ['metadata must be an object']],
      ['a JSON array body', [{ message: 'hi' }], ['the request body must be a JSON object']],
      ['a JSON string body', 'hi', ['the request body must be a JSON object']],
      [
        'every problem at once',
        { message: 1, agent: '', x: 1 },
        ['message must be a string', 'agent must not be empty', 'property x should not exist'],
      ],
    ])('%s → refused', (_name, body, messages) => {
      expect(check(ChatRequestSchema, body)).toEqual({ refused: messages });
    });

    it('passes a Korean turn through as sent, nested metadata included', () => {
      const body = {
        message: '해지 조건이 뭐야? 😀',
        agent: 'contract-qa',
        session_id: 'user-session:1',
        metadata: { 부서: { 팀: ['법무'] } },
      };
      expect(check(ChatRequestSchema, body)).toEqual({ ok: body });
    });

    it('treats a missing body as an empty one (message required)', () => {
      expect(check(ChatRequestSchema, undefined)).toEqual({ refused: ['message must be a string'] });
    });

    it('leaves oversized messages to MAX_MESSAGE_CHARS (413), not the schema', () => {
      expect(check(ChatRequestSchema, { message: 'x'.repeat(100_000) })).toEqual({ ok: { message: 'x'.repeat(100_000) } });
    });
  });

  describe('documents and contracts', () => {
    it('refuses a blank title, a title over 300 characters and blank content', () => {
      expect(check(CreateDocumentSchema, { title: ' ', content: 'x' })).toEqual({ refused: ['title must not be blank'] });
      expect(check(CreateDocumentSchema, { title: '가'.repeat(301), content: 'x' })).toEqual({
        refused: ['title must be shorter than or equal to 300 characters'],
      });
      expect(check(CreateDocumentSchema, { title: '휴가 정책', content: '\n' })).toEqual({ refused: ['content must not be empty'] });
      expect(check(CreateDocumentSchema, { title: '휴가 정책', content: '연차는 15일', source: 's'.repeat(501) })).toEqual({
        refused: ['source must be shorter than or equal to 500 characters'],
      });
    });

    it('accepts a Korean contract, without content (a multipart file brings it) and refuses an unknown kind', () => {
      const fields = Object.assign(Object.create(null) as object, { title: '용역계약서', kind: 'standard' }); // multer's body
      expect(check(CreateContractSchema, fields)).toEqual({ ok: { title: '용역계약서', kind: 'standard' } });
      expect(check(CreateContractSchema, { title: '용역계약서', kind: 'mine' })).toEqual({
        refused: ['kind must be one of the following values: user, standard'],
      });
      expect(check(CreateContractSchema, { title: '용역계약서', kind: undefined })).toEqual({ ok: { title: '용역계약서' } }); // no default applied
    });
  });

  describe('queries', () => {
    it('reads limit as an integer between 1 and 100', () => {
      expect(check(SessionListQuerySchema, { limit: '20', agent: 'react' })).toEqual({ ok: { limit: 20, agent: 'react' } });
      expect(check(SessionListQuerySchema, {})).toEqual({ ok: {} });
      for (const [limit, message] of [
        ['abc', 'limit must be an integer number'],
        ['1.5', 'limit must be an integer number'],
        ['0', 'limit must not be less than 1'],
        ['101', 'limit must not be greater than 100'],
        [['1', '2'], 'limit must be an integer number'],
      ] as const) {
        expect(check(SessionListQuerySchema, { limit })).toEqual({ refused: [message] });
      }
    });

    it('refuses unknown query parameters and a repeated agent', () => {
      expect(check(SessionListQuerySchema, { page: '2' })).toEqual({ refused: ['property page should not exist'] });
      expect(check(SessionListQuerySchema, { agent: ['a', 'b'] })).toEqual({ refused: ['agent must be a string'] });
      expect(check(ContractListQuerySchema, { kind: 'garbage' })).toEqual({
        refused: ['kind must be one of the following values: user, standard'],
      });
    });
  });
});
