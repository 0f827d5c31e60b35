/**
 * `npm run bench:matrix` (or `BENCH_ONLY=matrix npm run bench`): every seed scenario of the five agents under
 * tool calling {native, prompt, auto with an endpoint refusing tools} × JSON mode {on: endpoint supports
 * response_format and LLM_JSON_MODE=auto, off: LLM_JSON_MODE=off}, against a scripted model answering like a
 * real one. Prints the table, writes bench/results/agent-matrix.md; paste the compact table into the README.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { createTestDatabase } from '../test/support/infra';
import { type CellResult, repoRoot, runCell, startMatrixApp, uploadFixtures } from '../test/support/matrix-runner';
import { ScriptedModelServer } from '../test/support/model-server';
import { type JsonCell, SEED_SCENARIOS, type ToolCallingCell } from '../test/support/seed-scenarios';

const TOOL_MODES: ToolCallingCell[] = ['native', 'prompt', 'auto'];
const JSON_MODES: JsonCell[] = ['on', 'ignored', 'off'];

export async function runAgentMatrix(): Promise<{ results: CellResult[]; streamed: CellResult[] }> {
  const model = new ScriptedModelServer();
  await model.start();
  const db = await createTestDatabase('agent_matrix');
  const results: CellResult[] = [];
  const streamed: CellResult[] = [];
  try {
    let fixtures: Awaited<ReturnType<typeof uploadFixtures>> | undefined;
    for (const tools of TOOL_MODES) {
      for (const json of JSON_MODES) {
        const app = await startMatrixApp(model, db.url, tools, json);
        try {
          fixtures ??= await uploadFixtures(app);
          for (const scenario of SEED_SCENARIOS) results.push(await runCell(app, model, fixtures, scenario, tools, json));
          if (json !== 'on') continue;
          for (const scenario of SEED_SCENARIOS)
            streamed.push(await runCell(app, model, fixtures, scenario, tools, json, { stream: true }));
        } finally {
          await app.close();
        }
      }
    }
  } finally {
    await model.stop();
    await db.drop();
  }
  return { results, streamed };
}

const COMBOS = TOOL_MODES.flatMap((t) => JSON_MODES.map((j) => [t, j] as const));
const comboLabel = ([t, j]: readonly [ToolCallingCell, JsonCell]) => `${t === 'auto' ? 'auto (refused)' : t} · JSON ${j}`;

/** One row per scenario, one column per combination: `✅ 6 · 2` = correct · model calls · sources (⚠ incomplete). */
export function compactTable(results: CellResult[]): string {
  const head = ['agent', 'scenario', ...COMBOS.map(comboLabel)];
  const rows = SEED_SCENARIOS.map((s) => [
    s.agent,
    s.label,
    ...COMBOS.map(([t, j]) => {
      const r = results.find((x) => x.scenario.id === s.id && x.tools === t && x.json === j);
      if (!r) return '—';
      const calls = r.modelRequests !== r.llmCalls ? `${r.llmCalls} (${r.modelRequests} req)` : String(r.llmCalls);
      return `${r.correct ? '✅' : '❌'} ${calls} · ${r.sources.length}${r.sourcesMissing.length ? ' ⚠' : ''}`;
    }),
  ]);
  return markdown(head, rows);
}

/** Every cell on its own row, with the sources' refs and what is wrong. */
export function detailTable(results: CellResult[]): string {
  const head = [
    'agent',
    'scenario',
    'tool calling',
    'JSON mode',
    'correct',
    'sources',
    'model calls (nodes)',
    'sent: response_format / tools',
    'problem',
  ];
  const rows = results.map((r) => [
    r.scenario.agent,
    r.scenario.label,
    r.tools,
    r.json,
    r.correct ? 'yes' : 'NO',
    `${r.sources.length ? `${r.sources.length}: ${r.sources.join(', ')}` : '0'}${r.sourcesMissing.length ? ` — lacks ${r.sourcesMissing.join(', ')}` : ''}`,
    `${r.llmCalls}${r.modelRequests !== r.llmCalls ? ` [${r.modelRequests} HTTP requests]` : ''} (${r.nodes.join(', ')})`,
    `${r.sent.responseFormat} / ${r.sent.tools}`,
    r.problem ?? '',
  ]);
  return markdown(head, rows);
}

/** Streamed turns (JSON on): is the answer right, and is what the client saw as tokens the answer? */
export function streamedTable(streamed: CellResult[], detailed = false): string {
  const head = ['agent', 'scenario', ...TOOL_MODES.map((t) => (t === 'auto' ? 'auto (refused)' : t))];
  const rows = SEED_SCENARIOS.map((s) => [
    s.agent,
    s.label,
    ...TOOL_MODES.map((t) => {
      const r = streamed.find((x) => x.scenario.id === s.id && x.tools === t);
      if (!r) return '—';
      return `${r.correct ? '✅' : '❌'} ${r.llmCalls} · ${streamVerdict(r.tokens ?? '', r.answer, detailed)}`;
    }),
  ]);
  return markdown(head, rows);
}

/** How the `token` events relate to the answer: equal, the answer twice, or the answer mixed with other text. */
export function streamVerdict(tokens: string, answer: string, detailed: boolean): string {
  const t = tokens.trim();
  const a = answer.trim();
  if (!t) return a ? 'no tokens' : '= answer';
  if (t === a) return '= answer';
  if (t === a + a) return 'answer twice';
  const extra = (text: string) => (detailed ? ` ("${oneLine(text, 60)}")` : '');
  if (t.endsWith(a)) return `other text, then the answer${extra(t.slice(0, -a.length))}`;
  if (t.includes(a)) return `the answer among other text${extra(t)}`;
  return `not the answer${extra(t)}`;
}

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

function markdown(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

export const LEGEND = [
  'Cell: ✅/❌ answer correct · model calls (`llm_calls`; HTTP requests to the endpoint in brackets when they differ) · number of',
  'sources, ⚠ when they lack the document or article the answer came from.',
  '`auto (refused)`: LLM_TOOL_CALLING=auto against an endpoint that refuses tool requests (like vLLM without',
  '`--enable-auto-tool-choice`; like Ollama\'s "does not support tools" in the JSON-off column), so auto switches to the ReAct',
  'text format; each cell starts from a fresh process memory, so it pays the refused request. JSON on: LLM_JSON_MODE=auto and',
  'the endpoint enforces response_format (bare JSON back); JSON ignored: LLM_JSON_MODE=auto, the endpoint accepts',
  'response_format but does not enforce it (as servers that silently drop it do), so the model answers as without it;',
  'JSON off: LLM_JSON_MODE=off. Without enforcement the model wraps its JSON in prose or a ```json fence.',
].join(' ');

/** Runs the matrix, prints it and writes bench/results/agent-matrix.md; returns the bench summary rows. */
export async function benchAgentMatrix(): Promise<Array<[string, string, string]>> {
  const { results, streamed } = await runAgentMatrix();
  const correct = results.filter((r) => r.correct).length;
  const cited = results.filter((r) => r.sourcesMissing.length === 0).length;
  const flawed = results.filter((r) => !r.correct || r.sourcesMissing.length);
  const doc = [
    '# Seed scenarios × tool calling × JSON mode',
    '',
    `Generated by \`npm run bench:matrix\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    LEGEND,
    '',
    compactTable(results),
    '',
    '## Streamed (`POST /v1/chat/stream`, one token per SSE chunk, JSON on)',
    '',
    'Cell: ✅/❌ answer correct · model calls · the `token` events joined (what a streaming client shows) compared with the answer.',
    '',
    streamedTable(streamed, true),
    '',
    '## Every cell',
    '',
    detailTable(results),
    '',
  ].join('\n');
  const dir = join(repoRoot(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'agent-matrix.md'), doc);
  process.stdout.write(`\n${compactTable(results)}\n\n${streamedTable(streamed)}\n\nCells with a problem:\n\n${detailTable(flawed)}\n`);
  if (process.env.MATRIX_ANSWERS) for (const r of flawed) process.stdout.write(`${r.scenario.id} ${r.tools}/${r.json}: ${r.answer}\n`);
  const all = `${results.length} / ${results.length}`;
  const clean = streamed.filter((r) => r.correct && r.tokens?.trim() === r.answer.trim()).length;
  return [
    ['seed scenarios × tool calling × JSON mode: answers correct', `${correct} / ${results.length}`, all],
    ['… answers whose sources cite what they used', `${cited} / ${results.length}`, all],
    ['… streamed: correct and token stream = answer', `${clean} / ${streamed.length}`, `${streamed.length} / ${streamed.length}`],
  ];
}

if (require.main === module) {
  benchAgentMatrix().then(
    (rows) => {
      process.stdout.write(`\n${rows.map(([measure, result]) => `${measure}: ${result}`).join('\n')}\n`);
      process.exit(0);
    },
    (err: Error) => {
      process.stderr.write(`agent matrix failed: ${err.stack}\n`);
      process.exit(1);
    },
  );
}
