import type { Passage } from '../../vault-store/knowledge/ask.js';
import type { LlmConfig } from '../config.js';

const TIMEOUT_MS = 30_000;

/**
 * Asks an OpenAI-compatible chat endpoint to answer from the numbered passages only, citing
 * them as [n]. The passages are the same ones the extractive answer would quote.
 */
export async function generateAnswer(llm: LlmConfig, question: string, passages: Passage[], signal?: AbortSignal): Promise<string> {
  const context = passages.map((p, i) => `[${i + 1}] ${p.title} (${p.path})\n${p.text}`).join('\n\n');
  const res = await fetch(`${llm.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}) },
    body: JSON.stringify({
      model: llm.model,
      temperature: 0.2,
      messages: [
        {
          role: 'system',
          content:
            "Answer the question using only the numbered passages from the user's notes. Cite passages as [n]. If they do not answer it, say so.",
        },
        { role: 'user', content: `Passages:\n${context}\n\nQuestion: ${question}` },
      ],
    }),
    signal: signal ?? AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`LLM endpoint answered ${res.status}`);
  const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
  const answer = body.choices?.[0]?.message?.content?.trim();
  if (!answer) throw new Error('LLM endpoint returned no answer');
  return answer;
}
