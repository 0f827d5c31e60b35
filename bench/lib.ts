import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export async function post(base: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function get(base: string, path: string): Promise<any> {
  const res = await fetch(`${base}${path}`);
  return res.json();
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

/** A worker process (dist/worker.js) with its own environment. */
export function startWorkerProcess(env: Record<string, string>): ChildProcess {
  const extraArgs = process.env.BENCH_WORKER_ARGS ? process.env.BENCH_WORKER_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...extraArgs, join(__dirname, '..', '..', '..', 'dist', 'worker.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

export function table(rows: string[][], head = ['measure', 'result', 'target']): string {
  const all = [head, ...rows];
  const w = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${w.map((n, i) => (r[i] ?? '').padEnd(n)).join(' | ')} |`;
  return [line(head), `|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The scripted model server in a process of its own (support/model-process.ts): its base URL, and a stop. */
export async function startModelProcess(latencyMs: number): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(__dirname, 'support', 'model-process.js')], {
    env: { ...process.env, LATENCY_MS: String(latencyMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`model process exited with ${code}`)));
  });
  const stop = () => new Promise<void>((r) => (child.exitCode !== null ? r() : (child.once('exit', () => r()), child.kill('SIGTERM'))));
  return { url, pid: child.pid!, stop };
}

/** 0 for a process that is gone (a backend that closed in the window loses its share) */
export function cpuOf(pid: number): number {
  try {
    return cpuSecondsOf(pid);
  } catch {
    return 0;
  }
}

/** The processes whose parent `pid` is (the API's cluster workers). */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    });
}
