import { customAuthGuards, isLivenessPath, isOpenPath, OPEN_PATHS } from './open-paths';

const CLOSED = { metricsPublic: false, docsPublic: false };
const PUBLIC = { metricsPublic: true, docsPublic: true };

describe('the open paths (one list for every layer)', () => {
  it('is exactly this list: a new open path is a deliberate change here', () => {
    expect(OPEN_PATHS.map((p) => [p.path, p.exact ? 'exact' : 'subtree', p.when])).toEqual([
      ['/health', 'subtree', 'always'],
      ['/ok', 'exact', 'always'],
      ['/console', 'subtree', 'always'],
      ['/favicon.ico', 'exact', 'always'],
      ['/metrics', 'subtree', 'metricsPublic'],
      ['/docs', 'subtree', 'docsPublic'],
      ['/docs-json', 'exact', 'docsPublic'],
      ['/docs-yaml', 'exact', 'docsPublic'],
    ]);
  });

  it.each([
    ['/health', true, true],
    ['/health/live', true, true],
    ['/ok', true, true],
    ['/console/app.js', true, true],
    ['/favicon.ico', true, true],
    ['/metrics', false, true],
    ['/docs/openapi.json', false, true],
    ['/docs-json', false, true],
    // look-alikes are not open
    ['/healthz', false, false],
    ['/health-check', false, false],
    ['/ok/x', false, false],
    ['/okay', false, false],
    ['/consoles', false, false],
    ['/metricsx', false, false],
    ['/docs-anything', false, false],
    ['/info', false, false],
    ['/threads', false, false],
    ['/ui/chat/entrypoint.js', false, false],
    ['/HEALTH', false, false],
  ])('%s: open %s by default, %s with METRICS_PUBLIC and DOCS_PUBLIC', (path, byDefault, whenPublic) => {
    expect([isOpenPath(path, CLOSED), isOpenPath(path, PUBLIC)]).toEqual([byDefault, whenPublic]);
  });

  it('liveness is /health and /ok only', () => {
    expect(['/health', '/health/ready', '/ok', '/console', '/metrics', '/okay'].map(isLivenessPath)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it("custom auth guards everything but the open list, /info and GETs of a UI bundle's files", () => {
    const guarded = (method: string, path: string) => customAuthGuards(method, path);
    expect(['/health/live', '/ok', '/console', '/metrics', '/docs', '/docs-json', '/info'].map((p) => guarded('GET', p))).toEqual(
      Array(7).fill(false),
    );
    expect(guarded('GET', '/ui/chat/entrypoint.js')).toBe(false);
    expect(guarded('HEAD', '/ui/chat/entrypoint.js')).toBe(false);
    expect(guarded('POST', '/ui/chat')).toBe(true);
    expect(guarded('GET', '/ui/chat')).toBe(true);
    expect(guarded('GET', '/ui/chat/a/b.js')).toBe(true);
    expect(['/threads', '/v1/sessions', '/infos', '/custom/secret', '/mcp'].map((p) => guarded('GET', p))).toEqual(Array(5).fill(true));
  });
});
