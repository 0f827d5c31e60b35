import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import type { RecordedToolCall, ToolLedger } from '../../core/tool-ledger';
import { rowsOf } from '../../database/query-rows';

const NUL = new RegExp(String.fromCharCode(0), 'g');

/**
 * The ledger of one run in the `tool_ledger` table. A ledger that cannot be read or written never fails the turn.
 * On a run's first attempt every row of the run is one this object wrote (the session lease keeps a run to one
 * process), so lookups answer from memory: a tool call costs one insert, not a select and an insert.
 */
export class PgToolLedger implements ToolLedger {
  private readonly logger = new Logger(PgToolLedger.name);
  private readonly written = new Map<string, RecordedToolCall>();

  constructor(
    private readonly db: DataSource,
    private readonly runId: string,
    private readonly firstAttempt = false,
  ) {}

  async lookup(toolCallId: string): Promise<RecordedToolCall | null> {
    if (this.firstAttempt) return this.written.get(toolCallId) ?? null;
    try {
      const rows = rowsOf<RecordedToolCall>(
        await this.db.query(`SELECT content, status FROM tool_ledger WHERE run_id = $1 AND tool_call_id = $2`, [this.runId, toolCallId]),
      );
      return rows[0] ?? null;
    } catch (err) {
      this.logger.warn({ msg: 'tool ledger not readable', run_id: this.runId, err: (err as Error).message });
      return null;
    }
  }

  async record(toolCallId: string, name: string, args: unknown, result: RecordedToolCall): Promise<void> {
    if (!this.written.has(toolCallId)) this.written.set(toolCallId, result); // ON CONFLICT DO NOTHING: the first one stays
    try {
      await this.db.query(
        `INSERT INTO tool_ledger (run_id, tool_call_id, tool_name, args, content, status) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
        [this.runId, toolCallId, name, (JSON.stringify(args) ?? 'null').replace(NUL, ''), result.content.replace(NUL, ''), result.status],
      );
    } catch (err) {
      this.logger.warn({ msg: 'tool call not recorded in the ledger', run_id: this.runId, err: (err as Error).message });
    }
  }
}
