import { setTimeout as sleep } from 'node:timers/promises';

export interface HealthzReport<T> {
  /** What `attack` resolved to. */
  result: T;
  /** The slowest probe, counted from when it was due. */
  maxLatencyMs: number;
  probes: number;
}

/**
 * Runs `attack` while probing `GET /healthz` on `baseUrl` every `everyMs`, and reports the
 * worst latency: how long the server kept anyone else waiting. A probe counts from when it
 * was due, not from when it was sent, because the test server shares this process: an event
 * loop blocked between two probes delays the next one's start, and that delay is the block.
 * Probes run until the attack settles (at least one); an attack that fails throws here.
 */
export async function guardHealthz<T>(baseUrl: string, attack: () => Promise<T>, everyMs = 20): Promise<HealthzReport<T>> {
  const attackState: { done: boolean; value?: T; error?: unknown; failed?: boolean } = { done: false };
  const running = attack().then(
    (value) => Object.assign(attackState, { done: true, value }),
    (error: unknown) => Object.assign(attackState, { done: true, failed: true, error }),
  );
  let maxLatencyMs = 0;
  let probes = 0;
  let due = performance.now();
  while (!attackState.done || probes === 0) {
    const res = await fetch(`${baseUrl}/healthz`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET /healthz answered ${res.status}`);
    const answered = performance.now();
    maxLatencyMs = Math.max(maxLatencyMs, answered - due);
    probes += 1;
    due = answered + everyMs;
    await sleep(everyMs);
  }
  await running;
  if (attackState.failed) throw attackState.error;
  return { result: attackState.value as T, maxLatencyMs, probes };
}
