import { setTimeout as sleep } from 'node:timers/promises';

/** A REST write of one page: the server's answer. */
export type WritePage = (path: string, content: string) => Promise<Response>;

/**
 * A REST client writing pages one after another, 20 to 100 ms apart, until stopped or the server
 * is gone. Every 2xx answer is an acknowledged write (its commit and page hash).
 */
export function restWriter(write: WritePage) {
  const acked: { path: string; hash: string; commit: string }[] = [];
  const refused: number[] = [];
  let paused = false;
  let stopped = false;
  let idle = Promise.resolve();
  const writing = (async () => {
    for (let i = 0; !stopped; i++) {
      if (paused) {
        await sleep(5);
        continue;
      }
      let done!: () => void;
      idle = new Promise((resolve) => (done = resolve));
      try {
        const path = `rest/w${i}.md`;
        const res = await write(path, `# Write ${i}\n\n${'rest write body\n'.repeat(50)}`);
        const body = await res.json();
        if (res.ok) acked.push({ path, hash: body.hash, commit: body.commit });
        else refused.push(res.status);
        await sleep(20 + Math.random() * 80);
      } catch {
        stopped = true; // the server is gone
      } finally {
        done();
      }
    }
  })();
  return {
    acked,
    refused,
    /** Waits for the write under way to end; starts no other until `resume()`. */
    pause: async () => {
      paused = true;
      await idle;
    },
    resume: () => void (paused = false),
    /** Starts no other write, and waits for the one under way. */
    stop: async () => {
      stopped = true;
      await writing;
    },
  };
}
