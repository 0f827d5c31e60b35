import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The production image and the compose file (issue 27), checked as files: this machine has no container daemon
 * in CI. docs/getting-started.md "Docker image" describes the image.
 */
const REPO = path.resolve(__dirname, '../..');
const dockerfile = readFileSync(path.join(REPO, 'Dockerfile'), 'utf8');
const compose = readFileSync(path.join(REPO, 'docker-compose.yml'), 'utf8');
/** the instructions of the image's last stage (the one that runs), continuation lines joined */
const finalStage = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split(/^FROM /m)
  .at(-1)!;

describe('Dockerfile', () => {
  it('installs with npm ci only, and the image keeps production dependencies only', () => {
    expect(dockerfile).not.toMatch(/npm install/);
    expect(dockerfile.match(/npm ci/g)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(finalStage).toMatch(/COPY --from=deps \/app\/node_modules/);
    expect(finalStage).not.toMatch(/COPY --from=build \/app\/node_modules/);
  });

  it('runs as a non-root user, with a readiness health check and a volume for the embedded database', () => {
    expect(finalStage).toMatch(/^USER node$/m);
    expect(finalStage.indexOf('USER node')).toBeLessThan(finalStage.indexOf('CMD'));
    expect(finalStage).toMatch(/^HEALTHCHECK .*\/health\/ready/m);
    expect(finalStage).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(finalStage).toMatch(/DATA_DIR=\/data/);
    expect(finalStage).toMatch(/chown node:node \/data/);
  });
});

describe('docker-compose.yml', () => {
  it("keeps the app's defaults (no forced LLM_TOOL_CALLING) and asks for API_KEYS on the published API", () => {
    expect(compose).not.toMatch(/LLM_TOOL_CALLING/);
    expect(compose).toMatch(/ports: \["3000:3000"\]/);
    expect(compose).toMatch(/API_KEYS: \$\{API_KEYS:\?[^}]+\}/); // compose refuses to start without it
  });

  it('does not run the HTTP health check on workers, which serve no HTTP', () => {
    const worker = compose.slice(compose.indexOf('\n  worker:'));
    expect(worker).toMatch(/healthcheck: \{ disable: true \}/);
  });
});
