/**
 * The error a general tool throws for bad input, a refusal or a failed upstream call. Its message is
 * written for the model: the agent's tool node turns any thrown error into an error ToolMessage
 * (`Error: <message>`), so the run continues and the model can correct itself.
 *
 * Messages never contain secrets (API keys, full query strings), only what the model may see.
 */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}
