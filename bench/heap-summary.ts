/**
 * Summarise what a process allocated, from bench/support/heap-sampler.js's files: bytes per unit (e.g. the turns
 * the window held) by the package or service folder that asked (the nearest frame of one up the stack: Node's own
 * allocations are charged to their caller) and by the allocating frame.
 *
 *   node -r ./test/support/swc-register.js bench/heap-summary.ts --per 900 [--top 25] /tmp/api.heapprofile
 */
import { readFileSync } from 'node:fs';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: HeapNode[];
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** the package (node_modules) or service folder (dist/<folder>) of a frame, if it has one */
function ownerOf(url: string): string | undefined {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const service = /\/dist\/([^/]+)\//.exec(url);
  return service ? `service: ${service[1]}` : undefined;
}

function label(node: HeapNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')}:${lineNumber}`;
}

function main(): void {
  const per = arg('--per', 1);
  const top = arg('--top', 25);
  const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !['--per', '--top'].includes(all[i - 1]));
  const byOwner = new Map<string, number>();
  const byFrame = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, owner: string) => {
    const own = ownerOf(node.callFrame.url) ?? owner;
    if (node.selfSize) {
      total += node.selfSize;
      byOwner.set(own, (byOwner.get(own) ?? 0) + node.selfSize);
      byFrame.set(label(node), (byFrame.get(label(node)) ?? 0) + node.selfSize);
    }
    for (const child of node.children ?? []) walk(child, own);
  };
  for (const file of files)
    walk((JSON.parse(readFileSync(file, 'utf8')) as { profile: { head: HeapNode } }).profile.head, 'node internals');
  const kb = (bytes: number) => (bytes / per / 1024).toFixed(1);
  const table = (title: string, m: Map<string, number>) =>
    [
      `| ${title} | KB per unit (÷ ${per}) | share |`,
      '|---|---|---|',
      ...[...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([k, v]) => `| \`${k}\` | ${kb(v)} | ${((100 * v) / total).toFixed(1)} % |`),
    ].join('\n');
  process.stdout.write(
    `${files.length} profile(s): ${kb(total)} KB allocated per unit\n\n${table('asked by', byOwner)}\n\n${table('allocating frame', byFrame)}\n`,
  );
}

main();
