import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Browser, chromium, type Page } from 'playwright-core';

import { SCRIPTED_LLM, useService } from '../support/service-fixture';

const { buildConsole } = require('../../console/build.js') as { buildConsole: (outdir: string) => Promise<string> };

const ACME = 'acme-console-key-0123456789';
const GLOBEX = 'globex-console-key-0123456789';
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'console');
const CONTRACT = join(__dirname, '..', 'fixtures', 'contracts', 'service-agreement.md');
const uiDir = mkdtempSync(join(tmpdir(), 'console-ui-'));

// one browser for the file: built page and Chromium before any app starts
let browser: Browser;
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await buildConsole(uiDir);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  rmSync(uiDir, { recursive: true, force: true });
});

const screenshot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** The web console in a real browser (Debian's Chromium through playwright-core) against the whole app. */
describe('web console at /console', () => {
  const svc = useService('console', {
    env: { ...SCRIPTED_LLM, API_KEYS: `acme:${ACME},globex:${GLOBEX}`, CONSOLE_DIR: uiDir },
    model: { resetEach: true },
  });
  const { model } = svc;
  let page: Page;

  const shot = (name: string) => screenshot(page, name);
  const useKey = async (key: string) => {
    await page.fill('input[name="api-key"]', key);
    await page.click('.key-form button');
  };

  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  });
  afterAll(() => page?.close());

  it('serves the page without a key, under a CSP that allows only its own scripts', async () => {
    const res = await fetch(`${svc.url}/console`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<script type="module" src="/console/app.js">');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const js = await fetch(`${svc.url}/console/app.js`);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    for (const path of ['/console/secrets.env', '/console/__proto__', '/console/..%2Fpackage.json']) {
      const missing = await fetch(`${svc.url}${path}`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as any).error.code).toMatch(/NOT_FOUND/);
    }
  });

  it('shows the API error to the user: a wrong key is a 401 message', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.url}/console`);
    await useKey('not-a-valid-key');
    const alert = page.locator('[role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('401 UNAUTHORIZED: a valid API key is required');
    await shot('wrong-key');
    expect(errors).toEqual([]); // an API error is shown, not thrown
  });

  it('sends a message: the answer streams in, the graph highlights the running node, each step is listed', async () => {
    await useKey(ACME);
    await page.locator('select[name="agent"] option[value="react"]').waitFor({ state: 'attached' });
    await page.selectOption('select[name="agent"]', 'react');
    // the agent's graph, drawn from GET /assistants/react/graph
    await page.locator('.graph .node[data-node="ToolNode"]').waitFor();
    expect(await page.locator('[role="alert"]').count()).toBe(0);

    model.configure({ tokenPerChunk: true });
    model.latencyMs = 700; // each model call takes a while, so the run can be watched while it runs
    model.enqueue({ toolCalls: [{ name: 'calculator', args: { expression: '9*9' } }] }, { content: 'Nine times nine is eighty-one.' });
    await page.fill('textarea[name="message"]', 'What is nine times nine?');
    await page.click('.composer button[type="submit"]');
    // while the run is under way a node is highlighted
    // (a string: evaluated in the page, both conditions at the same moment)
    await page.waitForFunction(
      `!!document.querySelector('.graph .node.current') && document.querySelector('.composer button').textContent === 'Running…'`,
    );
    await shot('chat-running');
    await page.locator('.composer button:text-is("Send")').waitFor();
    model.latencyMs = 0;

    expect(await page.locator('.msg.assistant .content').last().textContent()).toBe('Nine times nine is eighty-one.');
    expect(await page.locator('.msg.assistant .tool-calls').last().textContent()).toContain('calculator({"expression":"9*9"}) → success');
    const rows = page.locator('.steps tbody tr');
    const steps: { node: string | null; tokens: number }[] = [];
    for (let i = 0; i < (await rows.count()); i += 1) {
      const row = rows.nth(i);
      steps.push({ node: await row.getAttribute('data-node'), tokens: Number(await row.locator('td').last().textContent()) });
    }
    expect(steps.map((s) => s.node)).toEqual(['InputNode', 'LlmNode', 'ToolNode', 'LlmNode', 'ResponseNode']);
    // the final answer's tokens arrived as `token` events during the second model call, not only with the result
    expect(steps[3].tokens).toBeGreaterThan(1);
    // after the run: the last node stays highlighted, the visited ones marked, the trace's model calls listed
    expect(await page.locator('.graph .node.current').getAttribute('data-node')).toBe('ResponseNode');
    expect(await page.locator('.graph .node.visited[data-node="ToolNode"]').count()).toBe(1);
    expect(await page.locator('.run-panel .model-calls tbody tr').count()).toBe(2);
    expect(await page.locator('.run-panel .tool-history').textContent()).toContain('calculator');
    // the session is listed and its past run opens with its trace
    expect(await page.locator('.sessions li').count()).toBe(1);
    await page.locator('.past-runs button').first().click();
    await page.locator('.run-panel .trace').nth(1).waitFor();
    await shot('chat-done');

    const listed = await call(svc.url, ACME, 'GET', '/v1/sessions');
    expect(listed.body.sessions).toEqual([expect.objectContaining({ agent: 'react', summary: null })]);
  });

  it('opens an existing session from the list and continues it', async () => {
    await page.click('.sessions button:has-text("New session")');
    expect(await page.locator('.msg').count()).toBe(0);
    await page.locator('.sessions li button').first().click();
    await page.locator('.msg.assistant').first().waitFor();
    expect(await page.locator('.msg .content').allTextContents()).toEqual(['What is nine times nine?', 'Nine times nine is eighty-one.']);

    model.enqueue({ content: 'Still eighty-one.' });
    await page.fill('textarea[name="message"]', 'And again?');
    await page.click('.composer button[type="submit"]');
    await page.locator('.msg.assistant .content:text-is("Still eighty-one.")').waitFor();
    await page.locator('.past-runs li').nth(1).waitFor();
    const { body } = await call(svc.url, ACME, 'GET', '/v1/sessions');
    expect(body.sessions).toHaveLength(1);
    const session = (await call(svc.url, ACME, 'GET', `/v1/sessions/${body.sessions[0].session_id}`)).body;
    expect(session.runs).toHaveLength(2);
    expect(session.messages.map((m: { content: string }) => m.content)).toContain('And again?');
  });

  it('uploads a contract and shows its articles and exhibits', async () => {
    await page.click('header nav button:has-text("Contracts")');
    await page.fill('.upload-contract input[name="title"]', '유지보수 용역계약');
    await page.setInputFiles('.upload-contract input[type="file"]', CONTRACT);
    await page.click('.upload-contract button[type="submit"]');
    await page.locator('.contract .articles li').first().waitFor();
    await shot('contract');

    const { body } = await call(svc.url, ACME, 'GET', '/v1/contracts');
    expect(body.contracts).toHaveLength(1);
    const contract = (await call(svc.url, ACME, 'GET', `/v1/contracts/${body.contracts[0].contract_id}`)).body;
    const shown = await page.locator('.contract .articles li b').allTextContents();
    expect(shown).toEqual(contract.articles.map((a: { number: string }) => a.number));
    expect(shown.length).toBe((readFileSync(CONTRACT, 'utf8').match(/^## 제\d+조/gm) ?? []).length);
    expect(await page.locator('.contract .exhibits li').count()).toBe(contract.exhibits.length);
    expect(contract.exhibits.length).toBeGreaterThan(0);
  });

  it('adds a knowledge document and shows its chunks; another tenant cannot read them', async () => {
    const content = `# 휴가 정책\n\n연차 휴가는 입사 1년 후 15일이 주어진다.\n\n## 이월\n\n남은 연차는 다음 해 3월까지 이월할 수 있다.`;
    await page.fill('.add-document input[name="title"]', '휴가 규정');
    await page.fill('.add-document textarea[name="content"]', content);
    await page.click('.add-document button[type="submit"]');
    await page.locator('.document .chunks li').first().waitFor();
    await shot('document');

    const { body } = await call(svc.url, ACME, 'GET', '/v1/documents');
    const id = body.documents[0].document_id;
    const doc = (await call(svc.url, ACME, 'GET', `/v1/documents/${id}`)).body;
    expect(doc.chunks.length).toBeGreaterThan(0);
    expect(doc.chunks.map((c: { content: string }) => c.content).join('\n')).toContain('3월까지 이월');
    const shown = await page.locator('.document .chunks .chunk-text').allTextContents();
    expect(shown).toEqual(doc.chunks.map((c: { content: string }) => c.content));
    expect(await page.locator('.documents li').textContent()).toContain(`${doc.chunks.length} chunks`);
    for (const [key, path] of [
      [GLOBEX, `/v1/documents/${id}`],
      [ACME, '/v1/documents/not-an-id'],
    ]) {
      const res = await call(svc.url, key, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('DOCUMENT_NOT_FOUND');
    }
  });

  it('lists sessions per tenant, validates the limit', async () => {
    expect((await call(svc.url, GLOBEX, 'GET', '/v1/sessions')).body).toEqual({ sessions: [] });
    const bad = await call(svc.url, ACME, 'GET', '/v1/sessions?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    const openapi = await call(svc.url, ACME, 'GET', '/docs/openapi.json');
    expect(Object.keys(openapi.body.paths['/v1/sessions'])).toContain('get');
    expect(Object.keys(openapi.body.paths['/v1/documents/{id}'])).toEqual(expect.arrayContaining(['get', 'delete']));
    expect(openapi.body.paths['/console']).toBeUndefined();
  });
});

describe('web console without a model and without API keys', () => {
  const svc = useService('console-no-model', { env: { CONSOLE_DIR: uiDir } });

  it('says that no model is configured, and answers by rules', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await page.goto(`${svc.url}/console`);
      const notice = page.locator('.notice.no-model');
      await notice.waitFor();
      expect(await notice.textContent()).toContain('runs without a model');
      await page.locator('select[name="agent"] option[value="react"]').waitFor({ state: 'attached' });
      await page.selectOption('select[name="agent"]', 'react');
      await page.fill('textarea[name="message"]', '(12 + 3) * 4');
      await page.click('.composer button[type="submit"]');
      await page.locator('.msg.assistant .meta').waitFor();
      expect(await page.locator('.msg.assistant .content').textContent()).toBe('(12 + 3) * 4 = 60');
      expect(await page.locator('.msg.assistant .meta').textContent()).toContain('0 model calls');
      await screenshot(page, 'no-model');
    } finally {
      await page.close();
    }
  });
});
