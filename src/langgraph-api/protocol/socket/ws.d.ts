/**
 * The part of `ws` (8.x, a dependency of the SDK and of the reference server, declared in package.json) the
 * protocol's WebSocket uses; the package ships no types and `@types/ws` is not installed.
 */
declare module 'ws' {
  import { EventEmitter } from 'node:events';
  import type { IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';

  type RawData = Buffer | ArrayBuffer | Buffer[];

  class WebSocket extends EventEmitter {
    static readonly OPEN: 1;
    readonly readyState: 0 | 1 | 2 | 3;
    readonly protocol: string;
    readonly bufferedAmount: number;
    constructor(address: string, protocols?: string | string[], options?: { headers?: Record<string, string>; maxPayload?: number });
    send(data: string | Buffer, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'open', listener: () => void): this;
    on(event: 'unexpected-response', listener: (req: unknown, res: IncomingMessage) => void): this;
    once(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    once(event: 'open', listener: () => void): this;
    once(event: 'error', listener: (err: Error) => void): this;
    once(event: 'unexpected-response', listener: (req: unknown, res: IncomingMessage) => void): this;
  }

  interface ServerOptions {
    noServer: true;
    maxPayload?: number;
    handleProtocols?: (protocols: Set<string>, request: IncomingMessage) => string | false;
    perMessageDeflate?: boolean;
  }

  class WebSocketServer extends EventEmitter {
    constructor(options: ServerOptions);
    readonly clients: Set<WebSocket>;
    handleUpgrade(
      request: IncomingMessage,
      socket: Duplex,
      head: Buffer,
      callback: (ws: WebSocket, request: IncomingMessage) => void,
    ): void;
    close(cb?: (err?: Error) => void): void;
  }

  export { RawData, WebSocket, WebSocketServer };
  export default WebSocket;
}
