/**
 * `npm test`: five jest runs as one — the unit project with parallel workers, then the request-level projects
 * (integration, e2e, embed, security, langgraph-api, conformance, browser) with three workers, then the fault suites
 * (reliability: worker kills, Redis and Postgres cuts, lease timings) one file at a time with nothing beside them,
 * then a chosen set of those files again with the service behind a real PgBouncer in transaction mode, which this
 * script starts (test/support/pgbouncer.ts; a PgBouncer that does not start fails that tier): jest.config.js's
 * `pgbouncer` project (request-level files) with as many workers as the request tier, then its `pgbouncer-faults`
 * project (fault suites) alone. `TEST_TIERS=unit,request,alone,pgbouncer` (any of them) runs only those tiers.
 *
 * jest.config.js keeps `maxWorkers: 1` (a plain `npx jest` runs every file alone), and jest has no per-project worker
 * count, so this runs jest once per tier: `--maxWorkers=<TEST_UNIT_WORKERS>` for unit (default: the cores less
 * one, at least 2), `<TEST_REQUEST_WORKERS>` (default 3) for the request-level projects and their PgBouncer run, 1
 * for the fault suites and theirs.
 * Every tier always runs; the exit code is non-zero when any fails. Arguments after `npm test --` go to each
 * (`npm test -- src/runs` runs the matching files of each tier; `--passWithNoTests` is added so that a tier without
 * a match is not a failure, and no match at all still is). `--json` gets ONE report (in `--outputFile=<file>`, else
 * on stdout) that adds up the runs (counts summed, `testResults` concatenated, `success` only when all succeeded; a
 * run that wrote no report counts as a runtime error), which is what `.ci/run` reads. A last line on stderr sums up
 * each run.
 *
 * One plain jest run with the given arguments instead when they pick projects or workers themselves or need one
 * process: `--selectProjects`, `--projects`, `--maxWorkers` / `-w`, `--runInBand` / `-i`, `--watch`, `--watchAll`,
 * `--coverage`, `--listTests`, `--showConfig`, `--help`, `--version`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import { TEST_PG_URL } from '../test/support/infra';
import { type PgBouncer, startPgBouncer } from '../test/support/pgbouncer';

type Report = Record<string, any>;

/** the projects that run one file at a time with nothing else beside them: worker kills, Redis and Postgres cuts, lease timings */
const ALONE = ['reliability'];

const SINGLE_RUN_FLAGS = [
  '--selectProjects',
  '--projects',
  '--maxWorkers',
  '-w',
  '--runInBand',
  '-i',
  '--watch',
  '--watchAll',
  '--coverage',
  '--collectCoverage',
  '--listTests',
  '--showConfig',
  '--help',
  '-h',
  '--version',
];

/** the counts of a jest JSON report, all zero */
const NO_TESTS: Report = {
  numFailedTestSuites: 0,
  numFailedTests: 0,
  numPassedTestSuites: 0,
  numPassedTests: 0,
  numPendingTestSuites: 0,
  numPendingTests: 0,
  numRuntimeErrorTestSuites: 0,
  numTodoTests: 0,
  numTotalTestSuites: 0,
  numTotalTests: 0,
  success: true,
  testResults: [],
};

const root = join(__dirname, '..');
const jestBin = require.resolve('jest/bin/jest', { paths: [root] });
const env = { ...process.env };
if (!(env.NODE_OPTIONS ?? '').includes('--experimental-vm-modules')) {
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim();
}

function jest(args: string[], more: Record<string, string> = {}): number {
  const run = spawnSync(process.execPath, [jestBin, ...args], { cwd: root, env: { ...env, ...more }, stdio: 'inherit' });
  if (run.error) console.error(run.error);
  return run.status ?? 1;
}

function isFlag(arg: string, flags: string[]): boolean {
  return flags.some((flag) => arg === flag || arg.startsWith(`${flag}=`) || (flag === '-w' && /^-w\d/.test(arg)));
}

/** adds `b` into `a`: counts summed, lists concatenated, `success` and-ed, other flags or-ed, `startTime` the earliest */
function merge(a: Report, b: Report): Report {
  const out: Report = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    if (mine === undefined) out[key] = value;
    else if (key === 'startTime') out[key] = Math.min(mine, value);
    else if (key === 'success') out[key] = Boolean(mine) && Boolean(value);
    else if (typeof mine === 'number' && typeof value === 'number') out[key] = mine + value;
    else if (Array.isArray(mine) && Array.isArray(value)) out[key] = [...mine, ...value];
    else if (typeof mine === 'boolean' && typeof value === 'boolean') out[key] = mine || value;
    else if (mine && value && typeof mine === 'object' && typeof value === 'object') out[key] = merge(mine, value);
  }
  return out;
}

async function main(): Promise<number> {
  const given = process.argv.slice(2);
  if (given.some((arg) => isFlag(arg, SINGLE_RUN_FLAGS))) return jest(given);

  // --json and --outputFile are this script's: each jest run writes its own report, the merged one goes where asked
  let json = false;
  let outputFile: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < given.length; i++) {
    const arg = given[i];
    if (arg === '--json') json = true;
    else if (arg === '--outputFile') outputFile = given[++i];
    else if (arg.startsWith('--outputFile=')) outputFile = arg.slice('--outputFile='.length);
    else rest.push(arg);
  }
  const passWithNoTests = rest.includes('--passWithNoTests');

  const config = require(join(root, 'jest.config.js')) as { projects: Array<{ displayName: string | { name: string } }> };
  const names = config.projects.map((p) => (typeof p.displayName === 'string' ? p.displayName : p.displayName.name));
  const unitWorkers = process.env.TEST_UNIT_WORKERS ?? String(Math.max(2, availableParallelism() - 1));
  // three on two cores: the request-level files wait on sockets and timers more than they compute (CI 2026-11-27: 610 s with two, 458 s with three)
  const requestWorkers = process.env.TEST_REQUEST_WORKERS ?? '3';
  const tiers = [
    { id: 'unit', label: `unit (${unitWorkers} workers)`, args: [`--maxWorkers=${unitWorkers}`, '--selectProjects', 'unit'] },
    {
      id: 'request',
      label: `the request-level projects (${requestWorkers} workers)`,
      args: [
        `--maxWorkers=${requestWorkers}`,
        '--selectProjects',
        ...names.filter((name) => !ALONE.includes(name) && name !== 'unit' && !name.startsWith('pgbouncer')),
      ],
    },
    { id: 'alone', label: 'the fault suites (1 worker)', args: ['--selectProjects', ...ALONE] },
    // through PgBouncer: the request-level files beside each other, as in their own tier, then the fault suites alone
    {
      id: 'pgbouncer',
      label: `through PgBouncer (${requestWorkers} workers)`,
      args: [`--maxWorkers=${requestWorkers}`, '--selectProjects', 'pgbouncer'],
      viaPgBouncer: true,
    },
    {
      id: 'pgbouncer',
      label: 'the fault suites through PgBouncer (1 worker)',
      args: ['--selectProjects', 'pgbouncer-faults'],
      viaPgBouncer: true,
    },
  ].filter((tier) => !process.env.TEST_TIERS || process.env.TEST_TIERS.split(',').includes(tier.id));

  const dir = mkdtempSync(join(tmpdir(), 'npm-test-'));
  let status = 0;
  let report: Report = { ...NO_TESTS };
  const lines: string[] = [];
  try {
    for (const [n, tier] of tiers.entries()) {
      const file = join(dir, `${n}.json`);
      const started = Date.now();
      let code = 1;
      let bouncer: PgBouncer | undefined;
      try {
        if (tier.viaPgBouncer) bouncer = await startPgBouncer(TEST_PG_URL);
        // --selectProjects takes every word after it (`=` too), so it goes last, after the caller's file patterns
        const args = [...rest, '--passWithNoTests', '--json', `--outputFile=${file}`, ...tier.args];
        code = jest(args, bouncer ? { TEST_PGBOUNCER: `127.0.0.1:${bouncer.port}` } : {});
      } catch (err) {
        console.error(`npm test: ${tier.label}: ${(err as Error).message}`); // no report: counted as a failed suite below
      } finally {
        await bouncer?.stop();
      }
      if (code !== 0) status = 1;
      let part: Report;
      try {
        part = JSON.parse(readFileSync(file, 'utf8')) as Report;
      } catch {
        // jest ended before writing its report (a config error, a crash): count it as one failed suite
        part = { ...NO_TESTS, numRuntimeErrorTestSuites: 1, success: false };
        status = 1;
      }
      report = merge(report, part);
      const seconds = Math.round((Date.now() - started) / 1000);
      const failed = (part.numFailedTests ?? 0) + (part.numRuntimeErrorTestSuites ?? 0);
      lines.push(`${tier.label}: ${part.numPassedTests ?? 0} passed, ${failed} failed, exit ${code}, ${seconds} s`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!report.numTotalTestSuites && !passWithNoTests && status === 0) {
    console.error('npm test: no tests found in any project');
    status = 1;
    report.success = false;
  }
  console.error(`npm test: ${lines.join('; ')}`);
  if (json) {
    const text = JSON.stringify(report);
    if (outputFile) writeFileSync(outputFile, text);
    else process.stdout.write(`${text}\n`);
  }
  return status;
}

void main().then((code) => (process.exitCode = code));
