import type { Response } from 'express';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** A comment line this often keeps proxies and clients from closing a quiet stream. */
export const KEEP_ALIVE_MS = 25_000;
/**
 * A stream ends after this long and the client reconnects with its current token: a
 * revoked key or an expired OAuth token stops hearing about the vault within this time.
 */
export const MAX_STREAM_MS = 10 * 60_000;
/** A client that stops reading must not make the server buffer without bound. */
const MAX_BUFFERED_BYTES = 1 << 20;

/** The server → client half of a session: one `text/event-stream` response (a GET on /mcp). */
export class EventStream {
  private readonly timers: NodeJS.Timeout[];
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];

  constructor(private readonly res: Response) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    this.timers = [setInterval(() => this.write(': keep-alive\n\n'), KEEP_ALIVE_MS), setTimeout(() => this.end(), MAX_STREAM_MS)];
    for (const timer of this.timers) timer.unref();
    res.on('close', () => this.closedBy());
  }

  send(message: JSONRPCMessage): void {
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  end(): void {
    if (!this.closed) this.res.end();
    this.closedBy();
  }

  private write(chunk: string): void {
    if (this.closed) return;
    if (this.res.writableLength > MAX_BUFFERED_BYTES) return this.end();
    this.res.write(chunk);
  }

  private closedBy(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const listener of this.closeListeners) listener();
  }
}
