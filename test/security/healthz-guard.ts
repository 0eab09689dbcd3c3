import { expect } from 'chai';
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

/** How long an attack may keep `/healthz` waiting: the bound the security issue sets. */
export const MAX_HEALTHZ_MS = 200;

/**
 * One request to a real test server under the guard: asserts the server kept answering
 * `/healthz` within MAX_HEALTHZ_MS and that the request succeeded, then returns its answer.
 */
export async function guardedRequest(
  server: { url: string; api: (path: string, init?: RequestInit & { key?: string; json?: unknown }) => Promise<Response> },
  key: string,
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<{ status: number; text: string }> {
  const { result, maxLatencyMs } = await guardHealthz(server.url, async () => {
    const res = await server.api(path, { ...init, key });
    return { status: res.status, text: await res.text() };
  });
  const what = `${init.method ?? 'GET'} ${path}`;
  expect(maxLatencyMs, `${what}: slowest /healthz`).to.be.below(MAX_HEALTHZ_MS);
  expect(result.status, `${what} answered ${result.text.slice(0, 200)}`).to.be.below(300);
  return result;
}
