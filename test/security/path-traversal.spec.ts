import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import type { ChatRequest } from '../support/model-server';
import { SCRIPTED_LLM, useService } from '../support/service-fixture';
import { http as call } from '../support/test-app';

/**
 * Path traversal (issue 9), the way an attacker reaches it: a chat turn whose model calls read_file with a
 * hostile path the user's own message asked for (so the prompt-injection guard lets it through to the
 * tool's own checks). READ_FILE_ROOT is a temp dir; secrets live next to it, in a sibling whose name
 * starts with the root's name, and behind symlinks inside it. Each call must fail with an error in the
 * tool history, and no secret may reach any model request.
 */
const SECRET = `SECRET-${randomBytes(6).toString('hex')}`;
const INSIDE = `INSIDE-${randomBytes(6).toString('hex')}`;

const toolResults = (reqs: ChatRequest[]) => reqs.flatMap((r) => r.messages.filter((m) => m.role === 'tool'));

describe('path traversal through read_file, over HTTP', () => {
  let base: string;
  let root: string;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'traversal-'));
    root = join(base, 'root');
    mkdirSync(join(root, 'docs'), { recursive: true });
    mkdirSync(join(base, 'rootX'));
    mkdirSync(join(base, 'outdir'));
    writeFileSync(join(root, 'docs', 'ok.txt'), INSIDE);
    writeFileSync(join(base, 'outside.txt'), SECRET);
    writeFileSync(join(base, 'rootX', 'secret.txt'), SECRET); // `${root}X`: a prefix match would let it in
    writeFileSync(join(base, 'outdir', 'secret.txt'), SECRET);
    symlinkSync(join(base, 'outside.txt'), join(root, 'link.txt')); // file symlink pointing out
    symlinkSync(join(base, 'outdir'), join(root, 'linkdir')); // directory symlink pointing out
    symlinkSync('../rootX', join(root, 'sib')); // relative symlink to the look-alike sibling
  });

  // after the files above (its env reads `root`); its teardown runs before the afterAll below
  const svc = useService('path_traversal', { env: () => ({ ...SCRIPTED_LLM, READ_FILE_ROOT: root }), model: { resetEach: true } });
  const { model } = svc;

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** One turn: the user asks for `path`, the model calls read_file on it, then answers. */
  async function readThroughChat(path: string, asked = `${path} 파일 내용을 읽어줘`) {
    model.enqueue({ toolCalls: [{ id: 'call_rf', name: 'read_file', args: { path } }] }, { content: '결과를 확인했습니다.' });
    const res = await call(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: asked });
    expect(res.status).toBe(200);
    const [result] = toolResults(model.requests).filter((m) => m.tool_call_id === 'call_rf');
    return { res, result: String(result?.content ?? '') };
  }

  it('control: a file inside the root is read through the same turn shape', async () => {
    const { res, result } = await readThroughChat('docs/ok.txt');
    expect(res.body.tool_calls).toEqual([{ name: 'read_file', args: { path: 'docs/ok.txt' }, status: 'success' }]);
    expect(result).toContain(INSIDE);
  });

  const attacks: Array<[string, () => string, RegExp, string?]> = [
    ['dot-dot to /etc/passwd', () => '../../etc/passwd', /"\.\." is not allowed/],
    ['dot-dot to the sibling file', () => '../outside.txt', /"\.\." is not allowed/],
    ['dot-dot after a real directory', () => 'docs/../../outside.txt', /"\.\." is not allowed/],
    ['backslash dot-dot', () => '..\\..\\etc\\passwd', /"\.\." is not allowed/],
    ['absolute /etc/passwd', () => '/etc/passwd', /absolute paths are not allowed/],
    ['absolute path of the outside file', () => join(base, 'outside.txt'), /absolute paths are not allowed/],
    ['absolute look-alike sibling (rootX)', () => join(`${root}X`, 'secret.txt'), /absolute paths are not allowed/],
    ['home directory', () => '~/.bashrc', /"~" paths are not allowed/],
    ['percent-encoded dot-dot (taken literally)', () => '%2e%2e/%2e%2e/etc/passwd', /file not found/],
    ['percent-encoded slashes (taken literally)', () => '..%2f..%2fetc%2fpasswd', /file not found/],
    ['file: URL (taken literally)', () => 'file:///etc/passwd', /file not found/],
    // the API refuses NUL in the user's message, so the user names the file and the model adds the NUL
    ['NUL byte truncation', () => 'docs/ok.txt\u0000/../../../etc/passwd', /NUL byte/, 'docs/ok.txt 와 /etc/passwd 파일 내용을 읽어줘'],
    ['symlink inside the root to a file outside', () => 'link.txt', /resolves outside the workspace root/],
    ['symlinked directory pointing outside', () => 'linkdir/secret.txt', /resolves outside the workspace root/],
    ['symlink to the look-alike sibling rootX', () => 'sib/secret.txt', /resolves outside the workspace root/],
    ['a path just under the schema limit (1024)', () => `${'a/'.repeat(511)}x`, /file not found/],
    ['a file name longer than NAME_MAX', () => 'a'.repeat(300), /ENAMETOOLONG/],
    ['a path over the schema limit', () => `${'../'.repeat(700)}etc/passwd`, /did not match expected schema/],
  ];

  it.each(attacks.map(([name, path, why, asked]) => ({ name, path, why, asked })))('refuses $name', async ({ path, why, asked }) => {
    const p = path();
    const { res, result } = await readThroughChat(p, asked);
    expect(res.body.error).toBeNull();
    expect(res.body.tool_calls).toEqual([{ name: 'read_file', args: { path: expect.any(String) }, status: 'error' }]);
    expect(result).toMatch(/^Error/);
    expect(result).toMatch(why);
    const seen = JSON.stringify(model.requests);
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toMatch(/root:x:0:0/);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it('traversal strings in document and contract titles, sources and upload file names are stored as text, never opened', async () => {
    const doc = await call(svc.url, 'POST', '/v1/documents', {
      title: '../../../../etc/passwd',
      source: join(base, 'outside.txt'),
      content: '출장 규정: 출장비는 실비로 정산한다.',
    });
    expect(doc.status).toBe(201);
    const docs = await call(svc.url, 'GET', '/v1/documents');
    const stored = JSON.stringify(docs.body);
    expect(stored).toContain('../../../../etc/passwd');
    expect(stored).toContain(join(base, 'outside.txt'));
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toMatch(/root:x:0:0/);

    const contractText = '# 용역계약서\n\n## 제1조 (목적)\n이 계약은 용역의 범위를 정한다.\n\n## 제2조 (기간)\n계약기간은 1년으로 한다.\n';
    const contract = await call(svc.url, 'POST', '/v1/contracts', { title: '../../outside.txt', content: contractText });
    expect(contract.status).toBe(201);
    expect(contract.body.title).toBe('../../outside.txt');
    const fetched = await call(svc.url, 'GET', `/v1/contracts/${contract.body.contract_id}`);
    expect(JSON.stringify(fetched.body)).not.toContain(SECRET);

    const escapeTarget = join(base, 'written-by-upload.md');
    const form = new FormData();
    form.append('title', 'upload');
    form.append('file', new Blob([contractText], { type: 'text/markdown' }), `../../../../${escapeTarget}`);
    const upload = await fetch(`${svc.url}/v1/contracts`, { method: 'POST', body: form });
    expect(upload.status).toBe(201);
    expect(existsSync(escapeTarget)).toBe(false);

    // the retrieved document's source is shown as text; nothing was read from it
    model.enqueue({ content: '출장비는 실비로 정산합니다.' });
    const chat = await call(svc.url, 'POST', '/v1/chat', { agent: 'assistant', message: '출장 규정이 어떻게 돼?' });
    expect(chat.status).toBe(200);
    expect(JSON.stringify(model.requests)).not.toContain(SECRET);
    const pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
    const rows = await pg.query('SELECT title, source FROM documents').finally(() => pg.end());
    expect(rows.rows).toEqual([{ title: '../../../../etc/passwd', source: join(base, 'outside.txt') }]);
  });
});
