/**
 * A deterministic token estimate that errs high, so a pack measured with it stays within
 * a model's real budget: 1 token per 4 ASCII characters (English BPE averages ~4), and 1
 * per non-ASCII character (CJK, accented letters and emoji take 1-3 tokens each in common
 * tokenizers; counting them as 1 keeps mixed text honest without a tokenizer dependency).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/** The longest prefix of `text` within `budget` tokens, cut at a line or word break when one is near. */
export function truncateToTokens(text: string, budget: number): string {
  if (estimateTokens(text) <= budget) return text;
  let ascii = 0;
  let other = 0;
  let end = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 128) ascii++;
    else other++;
    if (Math.ceil(ascii / 4) + other > budget) break;
    end += ch.length;
  }
  const cut = text.slice(0, end);
  const brk = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf(' '));
  return brk > end * 0.7 ? cut.slice(0, brk) : cut;
}
