import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import type { ChatResult } from '../../core/chat-result';
import { RunEventBus } from '../../events/run-event-bus';
import { RunsService } from '../../orchestrator/runs.service';
import { ApiOkResponse } from '../../platform/openapi-decorators';
import { idempotencyKey } from '../../runs/idempotency-key';
import { ApiErrors, ApiIdempotencyKey, ApiRequestBody, ApiSse } from '../dto/api-docs';
import { type ChatRequestDto, ChatRequestSchema } from '../dto/chat-request.dto';
import { ChatResultDto } from '../dto/chat-result.dto';
import { SseStream } from '../sse';
import { TurnGate } from '../turn-gate';
import { body } from '../validation/zod-request.pipe';

/** How long after the turn returned its result may still be on its way through the event bus. */
const RESULT_GRACE_MS = 5000;

@ApiErrors()
@Controller('v1/chat')
export class ChatController {
  constructor(
    private readonly runs: RunsService,
    private readonly gate: TurnGate,
    private readonly events: RunEventBus,
  ) {}

  /** One turn, answered in the request. */
  @Post()
  @HttpCode(200)
  @ApiIdempotencyKey()
  @ApiRequestBody('ChatRequestDto')
  @ApiOkResponse({ type: ChatResultDto })
  async chat(
    @Body(body(ChatRequestSchema)) request: ChatRequestDto,
    @Tenant() tenantId: string,
    @Headers('idempotency-key') key?: string,
  ): Promise<ChatResult> {
    return this.runs.chat({ ...(await this.gate.turn(request, tenantId)), idempotency_key: idempotencyKey(key) });
  }

  /**
   * The same turn as Server-Sent Events: `run` (ids), `progress` (each node), `token` (model output as it
   * arrives), then `result` (the ChatResult). Validation and acceptance errors are plain JSON errors; once
   * streaming, the run always ends with `result` — it is recorded even if the client goes away.
   * Progress, tokens and the result are read from the run event bus, as any other follower of the run reads them.
   * An idempotent repeat (`Idempotency-Key`) is not run again: `run` names the first run, `result` is its result.
   */
  @Post('stream')
  @HttpCode(200)
  @ApiIdempotencyKey()
  @ApiRequestBody('ChatRequestDto')
  @ApiSse('`run`, `progress`, `token`, then `result` (a ChatResult)')
  async stream(
    @Body(body(ChatRequestSchema)) request: ChatRequestDto,
    @Res() res: Response,
    @Tenant() tenantId: string,
    @Headers('idempotency-key') key?: string,
  ): Promise<void> {
    const turn = {
      ...(await this.gate.turn(request, tenantId)),
      stream: { modes: [], tokens: true },
      idempotency_key: idempotencyKey(key),
    };
    const { run, done: finished, repeat } = await this.runs.startTurn(turn);
    const sse = new SseStream(res);
    sse.send('run', { run_id: run.id, session_id: run.sessionId, agent: run.agent });
    if (repeat) {
      try {
        sse.send('result', await finished);
      } finally {
        sse.end();
      }
      return;
    }
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    let grace: NodeJS.Timeout | undefined;
    // the run's `end` closes the subscription; should it never come (a run ended elsewhere), the result still goes out
    const done = finished.then(
      (result) => {
        grace = setTimeout(() => stop.abort(), RESULT_GRACE_MS);
        return result;
      },
      (err: unknown) => {
        stop.abort();
        throw err;
      },
    );
    done.catch(() => undefined); // awaited below, after the events
    // executed here: its events come from the publishing side, not read back from Redis
    const events = this.events.subscribe(run.id, { signal: stop.signal, here: done });
    let sent = false;
    try {
      for await (const e of events) {
        // sent as the bus encoded them: each event is turned into JSON once
        if (e.event === 'progress' || e.event === 'token') sse.send(e.event, e.data, e.id, e.json);
        if (e.event === 'result') {
          sse.send('result', e.data, e.id, e.json);
          sent = true;
          break;
        }
      }
      const result = await done;
      if (!sent) sse.send('result', result);
    } finally {
      clearTimeout(grace);
      stop.abort();
      sse.end();
    }
  }
}
