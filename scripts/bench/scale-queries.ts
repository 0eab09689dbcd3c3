import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchVault } from './fixture.js';

export type QueryKind = 'common' | 'rare' | 'two_terms' | 'phrase' | 'prefix';

export interface BenchQuery {
  kind: QueryKind;
  q: string;
}

const PER_KIND = 60;

/** Two neighbouring words of a page's body, quoted: a phrase the vault really holds. */
function phraseOf(file: string, pick: number): string | undefined {
  const body = readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
  const words = body.match(/\b[a-z]{3,}\b/g) ?? [];
  if (words.length < 2) return undefined;
  const at = pick % (words.length - 1);
  return `"${words[at]} ${words[at + 1]}"`;
}

/**
 * A fixed set of queries from the vault's own vocabulary (the generator ranks words by
 * frequency): frequent and rare single terms, two terms, quoted phrases taken from pages,
 * and prefixes. Deterministic for a seed, so runs and sizes are comparable.
 */
export function benchQueries(source: string, manifest: BenchVault['manifest']): BenchQuery[] {
  const { vocab, paths } = manifest;
  const queries: BenchQuery[] = [];
  for (let i = 0; i < PER_KIND; i++) {
    queries.push({ kind: 'common', q: vocab[(i * 7) % 200] });
    queries.push({ kind: 'rare', q: vocab[2000 + ((i * 97) % 6000)] });
    queries.push({ kind: 'two_terms', q: `${vocab[(i * 13) % 500]} ${vocab[500 + ((i * 31) % 4500)]}` });
    const phrase = phraseOf(join(source, paths[(i * 7919) % paths.length]), i * 131);
    if (phrase) queries.push({ kind: 'phrase', q: phrase });
    const stem = vocab.slice(100 + i * 40).find((w) => w.length >= 5);
    if (stem) queries.push({ kind: 'prefix', q: `${stem.slice(0, 4)}*` });
  }
  return queries;
}
