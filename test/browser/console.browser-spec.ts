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
/** a host name other than localhost, resolved to the app by Chromium itself (no /etc/hosts) */
const HOST = 'console.test';

// Waits are a loaded machine's: the browser project runs beside the other suites in CI, where a page's answer
// can take several times as long as on a quiet machine. Each wait still fails the test when the answer never comes.
jest.setTimeout(180_000);
const WAIT_MS = 45_000;

// one browser for the file: built page and Chromium before any app starts
let browser: Browser;
/** a page whose waits (locators, waitForFunction) allow WAIT_MS rather than playwright's 30 s */
async function newPage(viewport: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(WAIT_MS);
  return page;
}
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await buildConsole(uiDir);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
  });
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
    page = await newPage({ width: 1400, height: 900 });
  });
  afterAll(() => page?.close());

  it('serves the page without a key, under a CSP that allows only its own scripts', async () => {
    const res = await fetch(`${svc.url}/console`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<script type="module" src="/console/app.js">');
    const csp = res.headers.get('content-security-policy');
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests'); // plain HTTP: assets stay on http
    const icon = await fetch(`${svc.url}/favicon.ico`); // public too, an image
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const js = await fetch(`${svc.url}/console/app.js`);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    for (const path of ['/console/secrets.env', '/console/__proto__']) {
      const missing = await fetch(`${svc.url}${path}`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as any).error.code).toMatch(/NOT_FOUND/);
    }
    // an encoded slash never reaches the console's files: the request edge refuses the path before any route
    const escape = await fetch(`${svc.url}/console/..%2Fpackage.json`);
    expect(escape.status).toBe(400);
    expect(((await escape.json()) as any).error.code).toBe('INVALID_PATH');
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
    await page.press('textarea[name="message"]', 'Enter'); // Enter sends
    // while the run is under way a node is highlighted
    // (a string: evaluated in the page, both conditions at the same moment)
    await page.waitForFunction(
      `!!document.querySelector('.graph .node.current') && document.querySelector('.composer button[type="submit"]').textContent === 'Running…'`,
    );
    await shot('chat-running');
    await page.locator('.composer button[type="submit"]:text-is("Send")').waitFor();
    expect(await page.inputValue('textarea[name="message"]')).toBe(''); // sent, so cleared
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
    expect(await page.locator('.msg.assistant .meta').last().textContent()).toMatch(/ · 2 model calls$/);
    expect(await page.locator('.run-panel .tool-history').textContent()).toContain('calculator');
    // the session is listed, titled by its first message, and its past run opens with its trace
    await page.locator('.sessions li .title:text-is("What is nine times nine?")').waitFor();
    expect(await page.locator('.sessions li').count()).toBe(1);
    expect(await page.locator('.sessions li').textContent()).not.toContain('summary');
    await page.locator('.past-runs button').first().click();
    await page.locator('.run-panel .trace').nth(1).waitFor();
    await shot('chat-done');

    const listed = await call(svc.url, ACME, 'GET', '/v1/sessions');
    expect(listed.body.sessions).toEqual([expect.objectContaining({ agent: 'react', title: 'What is nine times nine?', summary: null })]);
    const detail = await call(svc.url, ACME, 'GET', `/v1/sessions/${listed.body.sessions[0].session_id}`);
    expect(detail.body.title).toBe('What is nine times nine?');
  });

  it('opens an existing session from the list and continues it', async () => {
    await page.click('.sessions button:has-text("New session")');
    expect(await page.locator('.msg').count()).toBe(0);
    await page.locator('.sessions li button').first().click();
    await page.locator('.msg.assistant').first().waitFor();
    expect(await page.locator('.msg .content').allTextContents()).toEqual(['What is nine times nine?', 'Nine times nine is eighty-one.']);

    model.enqueue({ content: 'Still eighty-one.' });
    // Shift+Enter breaks the line and sends nothing; Enter sends both lines
    const box = page.locator('textarea[name="message"]');
    await box.fill('And again?');
    await box.press('Shift+Enter');
    await box.pressSequentially('Twice.');
    expect(await box.inputValue()).toBe('And again?\nTwice.');
    expect(await page.locator('.msg').count()).toBe(2);
    await box.press('Enter');
    await page.locator('.msg.assistant .content:text-is("Still eighty-one.")').waitFor();
    expect(await page.locator('.msg.user .content').last().textContent()).toBe('And again?\nTwice.');
    await page.locator('.past-runs li').nth(1).waitFor();
    // one model call is "1 model call", in the answer and in the session's runs
    expect(await page.locator('.msg.assistant .meta').last().textContent()).toMatch(/ · 1 model call$/);
    expect(await page.locator('.past-runs li').nth(1).textContent()).toMatch(/ · 1 model call$/);
    expect(await page.locator('.sessions li .title').textContent()).toBe('What is nine times nine?');
    const { body } = await call(svc.url, ACME, 'GET', '/v1/sessions');
    expect(body.sessions).toHaveLength(1);
    const session = (await call(svc.url, ACME, 'GET', `/v1/sessions/${body.sessions[0].session_id}`)).body;
    expect(session.runs).toHaveLength(2);
    expect(session.messages.map((m: { content: string }) => m.content)).toContain('And again?\nTwice.');
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
    expect(await page.locator('.documents li').textContent()).toContain(`${doc.chunks.length} chunk${doc.chunks.length === 1 ? '' : 's'}`);
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

/** What a page did wrong while open: script errors, console errors, failed requests, and every URL it asked for. */
function watch(page: Page) {
  const seen = { urls: [] as string[], errors: [] as string[] };
  page.on('request', (r) => seen.urls.push(r.url()));
  page.on('requestfailed', (r) => seen.errors.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') seen.errors.push(m.text());
  });
  return seen;
}

/**
 * Polls an expression in the page until it is truthy (page.evaluate runs it over CDP; the page's CSP, without
 * 'unsafe-eval', refuses waitForFunction's string predicates once they are polled in the page).
 */
async function until(page: Page, expression: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every edge of the drawn graph: does it start on its source's box, end on its target's, and which boxes does it cross? */
const EDGE_GEOMETRY = `(() => {
  const svg = document.querySelector('.graph');
  const boxes = new Map([...svg.querySelectorAll('.node')].map((g) => {
    const m = g.transform.baseVal.consolidate().matrix;
    const r = g.querySelector('rect');
    return [g.dataset.node, { x: m.e, y: m.f, w: r.width.baseVal.value, h: r.height.baseVal.value }];
  }));
  const inside = (p, b, inset) => p.x > b.x + inset && p.x < b.x + b.w - inset && p.y > b.y + inset && p.y < b.y + b.h - inset;
  const onBorder = (p, b) => inside(p, b, -1.5) && !inside(p, b, 1.5);
  return [...svg.querySelectorAll('path.edge')].map((path) => {
    const length = path.getTotalLength();
    const crossed = new Set();
    for (let at = 2; at < length - 2; at += 2) {
      const p = path.getPointAtLength(at);
      for (const [id, b] of boxes) if (inside(p, b, 1)) crossed.add(id);
    }
    return {
      edge: path.dataset.source + '->' + path.dataset.target,
      fromSource: onBorder(path.getPointAtLength(0), boxes.get(path.dataset.source)),
      toTarget: onBorder(path.getPointAtLength(length), boxes.get(path.dataset.target)),
      crossed: [...crossed],
    };
  });
})()`;

describe('web console without a model and without API keys', () => {
  const svc = useService('console-no-model', { env: { CONSOLE_DIR: uiDir } });

  const withPage = async (size: { width: number; height: number }, use: (page: Page) => Promise<void>) => {
    const page = await newPage(size);
    try {
      await use(page);
    } finally {
      await page.close();
    }
  };
  const pickAgent = async (page: Page, name: string) => {
    await page.locator(`select[name="agent"] option[value="${name}"]`).waitFor({ state: 'attached' });
    await page.selectOption('select[name="agent"]', name);
  };

  it('opens over plain HTTP under a host name other than localhost: every asset over http, no errors; /docs too', async () => {
    const base = svc.url.replace('127.0.0.1', HOST);
    await withPage({ width: 1400, height: 900 }, async (page) => {
      const seen = watch(page);
      await page.goto(`${base}/console`);
      await page.locator('select[name="agent"] option[value="react"]').waitFor({ state: 'attached' });
      await page.locator('.graph .node').first().waitFor();
      // the favicon decodes as an image in the browser
      expect(
        await page.evaluate(
          `new Promise((done) => { const i = new Image(); i.onload = () => done(i.naturalWidth); i.onerror = () => done(-1); i.src = '/favicon.ico'; })`,
        ),
      ).toBeGreaterThan(0);
      await screenshot(page, 'other-host');
      await page.goto(`${base}/docs`);
      await page.locator('.swagger-ui .info .title').waitFor();
      expect(await page.locator('.swagger-ui .opblock').count()).toBeGreaterThan(10);
      await screenshot(page, 'other-host-docs');
      expect(seen.errors).toEqual([]);
      expect(seen.urls.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:'))).toEqual([]);
      expect(seen.urls).toEqual(expect.arrayContaining([`${base}/console/app.js`, `${base}/console/app.css`]));
    });
  });

  it("draws every agent's graph: each edge leaves its source, enters its target and crosses no node", async () => {
    await withPage({ width: 1400, height: 900 }, async (page) => {
      await page.goto(`${svc.url}/console`);
      const { body } = await svc.http('GET', '/v1/agents');
      expect(body.agents.length).toBeGreaterThanOrEqual(5);
      for (const { name } of body.agents as Array<{ name: string }>) {
        const graph = (await svc.http('GET', `/assistants/${name}/graph`)).body;
        await pickAgent(page, name);
        const ids = JSON.stringify(graph.nodes.map((n: { id: string }) => n.id).sort());
        await until(
          page,
          `JSON.stringify([...document.querySelectorAll('.graph .node')].map((g) => g.dataset.node).sort()) === ${JSON.stringify(ids)}`,
        );
        const edges = (await page.evaluate(EDGE_GEOMETRY)) as Array<{
          edge: string;
          fromSource: boolean;
          toTarget: boolean;
          crossed: string[];
        }>;
        expect(edges.map((e) => e.edge).sort()).toEqual(
          graph.edges.map((e: { source: string; target: string }) => `${e.source}->${e.target}`).sort(),
        );
        expect(edges.filter((e) => !e.fromSource || !e.toTarget || e.crossed.length > 0)).toEqual([]);
        await screenshot(page, `graph-${name}`);
      }
    });
  });

  it('asks contract-qa about a contract picked in the composer (none yet: a link to upload one)', async () => {
    await withPage({ width: 1400, height: 900 }, async (page) => {
      await page.goto(`${svc.url}/console`);
      await pickAgent(page, 'contract-qa');
      await page.click('.contract-picker button:has-text("upload one")');
      await page.fill('.upload-contract input[name="title"]', '유지보수 용역계약');
      await page.setInputFiles('.upload-contract input[type="file"]', CONTRACT);
      await page.click('.upload-contract button[type="submit"]');
      await page.locator('.contract .articles li').first().waitFor();
      const [contract] = (await svc.http('GET', '/v1/contracts')).body.contracts;

      await page.click('header nav button:has-text("Chat")');
      const picker = page.locator('select[name="contract_id"]');
      await picker.locator(`option[value="${contract.contract_id}"]`).waitFor({ state: 'attached' });
      await page.fill('textarea[name="message"]', '해지 조건이 뭐야?');
      expect(await page.locator('.composer button[type="submit"]').isDisabled()).toBe(true); // no contract chosen yet
      await picker.selectOption(contract.contract_id);
      const [request] = await Promise.all([
        page.waitForRequest((r) => r.url().endsWith('/v1/chat/stream')),
        page.press('textarea[name="message"]', 'Enter'),
      ]);
      expect(request.postDataJSON()).toMatchObject({
        agent: 'contract-qa',
        contract_id: contract.contract_id,
        message: '해지 조건이 뭐야?',
      });
      await page.locator('.msg.assistant .meta').waitFor();
      expect(await page.locator('.msg.assistant .content').textContent()).toMatch(/\[제10조 계약의 해지\]/);
      await screenshot(page, 'contract-qa');

      // the session, opened again, keeps asking about the same contract
      await page.click('.sessions button:has-text("New session")');
      expect(await picker.inputValue()).toBe(contract.contract_id);
      await page.selectOption('select[name="contract_id"]', '');
      await page.locator('.sessions li button:has-text("해지 조건이 뭐야?")').click();
      await until(page, `document.querySelector('select[name="contract_id"]').value === ${JSON.stringify(contract.contract_id)}`);
    });
  });

  it('fits 1024×768: Send stays in view without scrolling the page, the conversation scrolls inside', async () => {
    await withPage({ width: 1024, height: 768 }, async (page) => {
      const sendInView = async () => {
        const box = (await page.locator('.composer button[type="submit"]').boundingBox())!;
        expect(box.y + box.height).toBeLessThanOrEqual(768);
        expect(box.x + box.width).toBeLessThanOrEqual(1024);
        expect(await page.evaluate('document.documentElement.scrollHeight')).toBeLessThanOrEqual(768);
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1024);
      };
      await page.goto(`${svc.url}/console`);
      await page.locator('.notice.no-model').waitFor();
      await pickAgent(page, 'react');
      await sendInView();
      for (let i = 1; i <= 5; i += 1) {
        await page.locator('.composer button[type="submit"]:not([disabled])').waitFor(); // the last turn has ended
        await page.fill('textarea[name="message"]', `${i} * 1000`);
        await page.press('textarea[name="message"]', 'Enter');
        await page
          .locator('.msg.assistant .meta')
          .nth(i - 1)
          .waitFor();
      }
      await page.locator('.past-runs li').nth(4).waitFor();
      expect(
        await page.evaluate(`(() => { const m = document.querySelector('.messages'); return m.scrollHeight > m.clientHeight; })()`),
      ).toBe(true);
      await sendInView();
      await screenshot(page, '1024x768');
      await page.click('.sessions button:has-text("New session")');
      await pickAgent(page, 'contract-qa');
      await page.locator('.contract-picker').waitFor();
      await sendInView();
    });
  });

  it('says that no model is configured, and answers by rules', async () => {
    const page = await newPage({ width: 1400, height: 900 });
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
