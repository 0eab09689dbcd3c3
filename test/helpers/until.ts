import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `probe` every 20 ms until it gives a value other than undefined or false; throws after `ms`. */
export async function until<T>(what: string, ms: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}
