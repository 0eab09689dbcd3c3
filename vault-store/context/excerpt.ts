import { estimateTokens, truncateToTokens } from './tokens.js';

const GAP = '\n\n…\n\n';
const GAP_TOKENS = estimateTokens(GAP);

function termsOf(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

/**
 * The paragraphs of a page that mention the topic most, in page order, within `budget`
 * tokens (the first paragraph wins ties, as it usually says what the page is). Gaps are
 * marked with "…". Falls back to the start of the best paragraph when none fits whole.
 */
export function excerpt(content: string, topic: string, budget: number): string {
  const terms = termsOf(topic);
  const paragraphs = content
    .split(/\n{2,}/)
    .map((text, index) => {
      const lower = text.toLowerCase();
      const score = terms.reduce((sum, term) => sum + lower.split(term).length - 1, 0);
      return { text: text.trim(), index, score, tokens: estimateTokens(text.trim()) + GAP_TOKENS };
    })
    .filter((p) => p.text);
  if (!paragraphs.length) return '';
  const ranked = [...paragraphs].sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen: typeof paragraphs = [];
  let left = budget;
  for (const p of ranked) {
    if (p.tokens <= left) {
      chosen.push(p);
      left -= p.tokens;
    }
  }
  if (!chosen.length) return truncateToTokens(ranked[0].text, budget);
  chosen.sort((a, b) => a.index - b.index);
  return chosen.map((p, i) => (i > 0 && chosen[i - 1].index !== p.index - 1 ? GAP : i > 0 ? '\n\n' : '') + p.text).join('');
}
