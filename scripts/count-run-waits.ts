/**
 * Finds the places in src/ (tests and the HTTP client package src/client, which runs in a caller's process and
 * can only poll the API, excluded) that wait for a run or a session's lease by looking again after a sleep:
 *
 * - a loop that sleeps (`setTimeout`, `sleep`, `nap`, `pause`, `delay`, or a method of the same class that does)
 *   in a function that re-reads a run, a lease or a session: tests a run's status (`FINAL_STATUSES`, `FINAL`,
 *   `hasEnded`, `.status` compared with a string) or asks a run store, session store, queue or lease
 *   (`tryLease`, `leaseHolder`, `inflight`, `nextOfSession`, `isLocal`, `get`, `getForTenant`, `getJob`, …);
 * - a parked run's re-check: a timer (`setTimeout`, BullMQ's `moveToDelayed`) in a function that parks a run
 *   (mentions `parked` / `park…`).
 *
 * A place is a slow safety net, listed apart, when the wait it belongs to is woken by an event and only looks
 * again seldom: its class (or file) takes its delay from `safetyNetMs` (seconds, jittered), or its sleep is raced
 * with an event (`nap(ms, signal, early)`). Every other place is a polling loop; the goal is none.
 *
 *   node -r ./test/support/swc-register.js scripts/count-run-waits.ts [root, default: this checkout] [--json]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import ts from 'typescript';

const SLEEPS = new Set(['setTimeout', 'sleep', 'nap', 'pause', 'delay']);
const TIMERS = new Set(['setTimeout', 'moveToDelayed']);
const END_TESTS = new Set(['FINAL_STATUSES', 'FINAL', 'hasEnded']);
const LOOKS = new Set([
  'tryLease',
  'leaseHolder',
  'inflight',
  'nextOfSession',
  'isLocal',
  'get',
  'getForTenant',
  'getJob',
  'getJobState',
  'getState',
  'jobStates',
]);
const RECEIVERS = /run|record|session|store|lease|queue|job/i;

export interface RunWaits {
  /** `path:line name` of each polling loop */
  polls: string[];
  /** `path:line name` of each slow safety net (woken by an event, looks again seldom) */
  safetyNets: string[];
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path.endsWith(join('src', 'client')) ? [] : files(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

function some(node: ts.Node, test: (n: ts.Node) => boolean): boolean {
  return test(node) || (ts.forEachChild(node, (child) => (some(child, test) ? true : undefined)) ?? false);
}

const calleeName = (n: ts.CallExpression): string | undefined =>
  ts.isIdentifier(n.expression) ? n.expression.text : ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : undefined;
const isLoop = (n: ts.Node) =>
  ts.isForStatement(n) || ts.isForOfStatement(n) || ts.isForInStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);
const isCallTo = (names: Set<string>) => (n: ts.Node) => ts.isCallExpression(n) && names.has(calleeName(n) ?? '');
const isThisCall = (names: Set<string>) => (n: ts.Node) =>
  ts.isCallExpression(n) &&
  ts.isPropertyAccessExpression(n.expression) &&
  n.expression.expression.kind === ts.SyntaxKind.ThisKeyword &&
  names.has(n.expression.name.text);
const isStatusTest = (n: ts.Node) =>
  (ts.isIdentifier(n) && END_TESTS.has(n.text)) ||
  (ts.isBinaryExpression(n) &&
    [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(n.operatorToken.kind) &&
    [n.left, n.right].some((side) => ts.isPropertyAccessExpression(side) && side.name.text === 'status') &&
    [n.left, n.right].some((side) => ts.isStringLiteral(side)));
/** `this.runs.get(…)`, `sessions.tryLease(…)`: a look at a run, a lease or a session */
const isLook = (n: ts.Node) => {
  if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression) || !LOOKS.has(n.expression.name.text)) return false;
  const receiver = n.expression.expression;
  const name = ts.isPropertyAccessExpression(receiver) ? receiver.name.text : ts.isIdentifier(receiver) ? receiver.text : '';
  return RECEIVERS.test(name);
};
const mentionsParking = (n: ts.Node) =>
  (ts.isStringLiteral(n) && n.text === 'parked') || (ts.isIdentifier(n) && /^park|parked|PARKED/.test(n.text));
/** a sleep raced with an event: `nap(ms, signal, early)` */
const isRacedSleep = (n: ts.Node) => ts.isCallExpression(n) && calleeName(n) === 'nap' && n.arguments.length >= 3;
const isSafetyNetDelay = isCallTo(new Set(['safetyNetMs']));

/** Methods of a class (or functions of a file) whose bodies sleep: a loop calling one of them sleeps too. */
function sleepingMethods(scope: ts.Node): Set<string> {
  const names = new Set<string>();
  ts.forEachChild(scope, function visit(n): void {
    if ((ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n)) && n.name && ts.isIdentifier(n.name) && n.body) {
      if (some(n.body, isCallTo(SLEEPS))) names.add(n.name.text);
    }
    if (!ts.isClassDeclaration(n)) ts.forEachChild(n, visit);
  });
  return names;
}

export function countRunWaits(root: string): RunWaits {
  const waits: RunWaits = { polls: [], safetyNets: [] };
  for (const path of files(join(root, 'src'))) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, scope: ts.Node): void => {
      if (ts.isClassDeclaration(node)) scope = node;
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const body = node.body;
        const sleeping = sleepingMethods(scope);
        const sleeps = (n: ts.Node) => isCallTo(SLEEPS)(n) || isThisCall(sleeping)(n);
        const loops = some(body, (n) => isLoop(n) && some(n, sleeps)) && some(body, (n) => isStatusTest(n) || isLook(n));
        const parks = some(body, isCallTo(TIMERS)) && some(body, mentionsParking);
        if (loops || parks) {
          const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
          const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          const slow = some(scope, isSafetyNetDelay) || some(body, isRacedSleep);
          (slow ? waits.safetyNets : waits.polls).push(`${relative(root, path)}:${line} ${name}`);
          return; // a nested function of a poller is the same place
        }
      }
      ts.forEachChild(node, (child) => visit(child, scope));
    };
    visit(source, source);
  }
  return waits;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const root = args.find((a) => !a.startsWith('--')) ?? join(__dirname, '..');
  const waits = countRunWaits(root);
  if (args.includes('--json')) {
    console.log(JSON.stringify(waits));
  } else {
    console.log('polling loops that wait for a run or a lease:');
    for (const place of waits.polls) console.log(`  ${place}`);
    console.log('slow safety nets (woken by an event, looking again every few seconds):');
    for (const place of waits.safetyNets) console.log(`  ${place}`);
    console.log(`polling loops: ${waits.polls.length}, safety nets: ${waits.safetyNets.length}`);
  }
}
