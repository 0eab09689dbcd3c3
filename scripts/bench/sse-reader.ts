/** One Server-Sent Event as received, with when it arrived (performance.now()). */
export interface ReceivedEvent {
  event: string;
  id?: string;
  data: string;
  at: number;
}

/**
 * A minimal Server-Sent Events client over fetch (the live-changes bench and tests): keeps every
 * event and counts comment lines. `ended` resolves when the stream ends, `failure` says if it broke.
 */
export class SseReader {
  readonly events: ReceivedEvent[] = [];
  comments = 0;
  /** How the stream broke, if it did not end cleanly (a reset connection). */
  failure: Error | undefined;
  readonly ended: Promise<void>;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.ended = this.read().finally(() => this.poke());
  }

  /** Opens the stream; a response that is not an event stream is returned for the caller to inspect. */
  static async open(url: string, headers: Record<string, string>): Promise<SseReader> {
    const abort = new AbortController();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    return new SseReader(response, abort);
  }

  /** The first event (from `from` on) matching `match`; throws after `ms`. */
  async next(match: (e: ReceivedEvent) => boolean, ms = 10_000, from = 0): Promise<ReceivedEvent> {
    const deadline = Date.now() + ms;
    let ended = false;
    void this.ended.then(() => (ended = true));
    for (;;) {
      const found = this.events.slice(from).find(match);
      if (found) return found;
      if (ended) throw new Error('the stream ended before the event came');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching event within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.abort.abort();
  }

  private poke(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private async read(): Promise<void> {
    if (!this.response.body || !this.response.headers.get('content-type')?.startsWith('text/event-stream')) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of this.response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.take(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (err) {
      if (!this.abort.signal.aborted) this.failure = err as Error;
    }
  }

  private take(block: string): void {
    const event: ReceivedEvent = { event: 'message', data: '', at: performance.now() };
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments += 1;
      else if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('event: ')) event.event = line.slice(7);
      else if (line.startsWith('data: ')) event.data += line.slice(6);
      else continue;
      if (!line.startsWith(':')) fields += 1;
    }
    if (fields) this.events.push(event);
    this.poke();
  }
}
