/**
 * Counts the places in src/ (tests and the HTTP client package src/client, which runs in a caller's process and
 * can only poll the API, excluded) that wait for a run's state by polling: a function with a loop that
 * sleeps (`setTimeout`, `sleep`, `nap`, `pause`) and tests a run's status (`FINAL_STATUSES`, `FINAL`, `hasEnded`,
 * or `.status` compared with a string). Issue #22's goal: one (RunEnds.awaitEnd). Prints each place, then the count.
 *
 *   node -r ./test/support/swc-register.js scripts/count-run-waits.ts [root, default: this checkout]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import ts from 'typescript';

const SLEEPS = new Set(['setTimeout', 'sleep', 'nap', 'pause']);
const END_TESTS = new Set(['FINAL_STATUSES', 'FINAL', 'hasEnded']);

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

const isLoop = (n: ts.Node) =>
  ts.isForStatement(n) || ts.isForOfStatement(n) || ts.isForInStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);
const isSleep = (n: ts.Node) => ts.isCallExpression(n) && ts.isIdentifier(n.expression) && SLEEPS.has(n.expression.text);
const isStatusTest = (n: ts.Node) =>
  (ts.isIdentifier(n) && END_TESTS.has(n.text)) ||
  (ts.isBinaryExpression(n) &&
    [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(n.operatorToken.kind) &&
    [n.left, n.right].some((side) => ts.isPropertyAccessExpression(side) && side.name.text === 'status') &&
    [n.left, n.right].some((side) => ts.isStringLiteral(side)));

const root = process.argv[2] ?? join(__dirname, '..');
const found: string[] = [];
for (const path of files(join(root, 'src'))) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body;
      const polls = some(body, (n) => isLoop(n) && some(n, isSleep)) && some(body, isStatusTest);
      if (polls) {
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${relative(root, path)}:${line} ${name}`);
        return; // a nested function of a poller is the same place
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
for (const place of found) console.log(place);
console.log(found.length);
