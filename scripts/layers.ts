/*
 * The folder-level import graph of src/, checked against the layer table of eslint.config.mjs (the one the
 * boundaries rule enforces): prints every upward import (file → imported folder), the same-layer imports the
 * table does not allow, and the folder cycles, then their counts — with and without the temporary allow-list.
 *   node -r ./test/support/swc-register.js scripts/layers.ts [--quiet]
 * Counts every import the lint rule sees (type-only ones and re-exports too); imports that leave src/ are
 * ignored. Exits 1 while any remain.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as ts from 'typescript';

interface LayerSpec {
  layers: string[][];
  sameLayer: [string, string][];
  isolated: string[];
}
// an ES module, loaded with require (Node ≥ 20.19)
const spec = require('../eslint.config.mjs') as LayerSpec;

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'src');
const quiet = process.argv.includes('--quiet');

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** the element a file of src/ belongs to: its top folder, or `entry` for the files at the root */
function folderOf(file: string): string {
  const rel = path.relative(src, file).split(path.sep);
  return rel.length === 1 ? 'entry' : rel[0];
}

const rank = new Map<string, number>();
spec.layers.forEach((names, i) => names.forEach((name) => rank.set(name, spec.layers.length - i)));
const allowedSame = new Set(spec.sameLayer.map(([a, b]) => `${a}>${b}`));

interface Edge {
  file: string;
  specifier: string;
  from: string;
  to: string;
}
const edges: Edge[] = [];
for (const file of walk(src)) {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  for (const imported of info.importedFiles) {
    const target = resolveImport(file, imported.fileName);
    if (!target || !target.startsWith(src + path.sep)) continue;
    const from = folderOf(file);
    const to = folderOf(target);
    if (from !== to) edges.push({ file: path.relative(root, file), specifier: imported.fileName, from, to });
  }
}

const unknown = new Set<string>();
const upward: Edge[] = [];
const sameLayer: Edge[] = [];
const isolatedBroken: Edge[] = [];
for (const edge of edges) {
  if (spec.isolated.includes(edge.from) || (spec.isolated.includes(edge.to) && edge.from !== 'entry')) {
    isolatedBroken.push(edge);
    continue;
  }
  if (spec.isolated.includes(edge.to)) continue;
  const from = rank.get(edge.from);
  const to = rank.get(edge.to);
  if (from === undefined) unknown.add(edge.from);
  if (to === undefined) unknown.add(edge.to);
  if (from === undefined || to === undefined) continue;
  if (to > from) upward.push(edge);
  else if (to === from && !allowedSame.has(`${edge.from}>${edge.to}`)) sameLayer.push(edge);
}

/** the folder cycles: strongly connected components (Tarjan) of the folder graph of `list` */
function cyclesOf(list: Edge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of list) {
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    graph.get(from)!.add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const strongConnect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        strongConnect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) strongConnect(node);
  return components;
}
const components = cyclesOf(edges);
const folderCount = new Set(edges.flatMap((e) => [e.from, e.to])).size;

const pairs = (list: Edge[]) => new Set(list.map((e) => `${e.from} → ${e.to}`));
function print(title: string, list: Edge[]): void {
  if (quiet || list.length === 0) return;
  console.log(`\n${title}`);
  for (const e of [...list].sort((a, b) => a.file.localeCompare(b.file))) {
    console.log(`  ${e.file} → ${e.to} (${e.specifier})`);
  }
}
print('upward imports:', upward);
print('same-layer imports the table does not allow:', sameLayer);
print('imports into or out of an isolated folder:', isolatedBroken);
if (!quiet) {
  for (const component of components) {
    const inner = edges.filter((e) => component.includes(e.from) && component.includes(e.to));
    console.log(`\nfolder cycle (${component.length} folders): ${component.join(', ')}`);
    for (const pair of [...pairs(inner)].sort()) console.log(`  ${pair}`);
  }
}
if (unknown.size > 0) console.log(`\nfolders in no layer: ${[...unknown].sort().join(', ')}`);
const summary = (c: string[][]) =>
  `${c.length} (${c.reduce((n, x) => n + x.length, 0)} folders in them, largest ${Math.max(0, ...c.map((x) => x.length))})`;
console.log(
  `\nfolders ${folderCount}; upward imports ${upward.length} (${pairs(upward).size} folder pairs); ` +
    `same-layer imports not allowed ${sameLayer.length}; isolated-folder imports ${isolatedBroken.length}; folder cycles ${summary(components)}`,
);
process.exitCode = upward.length + sameLayer.length + isolatedBroken.length + components.length > 0 ? 1 : 0;
