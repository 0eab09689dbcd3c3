import type { Embed } from '../../vault-store/knowledge/embeddings.js';
import type { LlmConfig } from '../config.js';

const TIMEOUT_MS = 60_000;

/** An OpenAI-compatible `/embeddings` endpoint as an Embed function. */
export function embedder(config: LlmConfig): Embed {
  return async (texts) => {
    const res = await fetch(`${config.baseUrl}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify({ model: config.model, input: texts }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`embeddings endpoint answered ${res.status}`);
    const body = (await res.json()) as { data?: { index?: number; embedding?: unknown }[] };
    const data = body.data ?? [];
    // The API may answer out of order; `index` says which input each vector is for.
    const vectors = new Array<Float32Array>(texts.length);
    data.forEach((item, i) => {
      const at = item.index ?? i;
      if (!Array.isArray(item.embedding) || !item.embedding.every((x) => typeof x === 'number') || !(at >= 0 && at < texts.length)) {
        throw new Error('embeddings endpoint returned a malformed vector');
      }
      vectors[at] = Float32Array.from(item.embedding as number[]);
    });
    if (data.length !== texts.length || vectors.some((v) => !v))
      throw new Error(`embeddings endpoint returned ${data.length} vectors for ${texts.length} texts`);
    return vectors;
  };
}
