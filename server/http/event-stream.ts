import type { ServerResponse as Response } from 'node:http';

/** How a stream keeps itself alive and how long it may live. */
export interface StreamTiming {
  /** A comment line this often keeps proxies and clients from closing a quiet stream. */
  keepAliveMs: number;
  /**
   * The stream ends after this long and the client reconnects with its current credential: a
   * revoked key or an expired token stops hearing about the vault within this time.
   */
  maxMs: number;
}

/** A client that stops reading must not make the server buffer without bound. */
const MAX_BUFFERED_BYTES = 1 << 20;

/**
 * One `text/event-stream` response (Server-Sent Events): MCP's GET stream and the REST
 * change events. Ends itself past its lifetime or when the client stops reading.
 */
export class EventStream {
  private readonly timers: NodeJS.Timeout[];
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly res: Response,
    timing: StreamTiming,
  ) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    this.timers = [setInterval(() => this.write(': keep-alive\n\n'), timing.keepAliveMs), setTimeout(() => this.end(), timing.maxMs)];
    for (const timer of this.timers) timer.unref();
    res.on('close', () => this.closedBy());
    // The client may have gone while the stream was being prepared: 'close' came already.
    if (res.destroyed) this.closedBy();
  }

  /** One event; `data` is a single line (JSON), `id` what the client sends back as `Last-Event-ID`. */
  send(event: string, data: string, id?: string): void {
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(listener: () => void): void {
    if (this.closed) return listener();
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
