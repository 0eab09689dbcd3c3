import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';

const WORDS = ['amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'granite', 'heron', 'iris', 'juniper', 'kestrel', 'lichen'];
const QUERIES = ['amber', 'kestrel heron', 'fjord*', '"cedar delta"', 'p7', 'granite -iris', 'soil'];

/** Pages with front-matter, tags, links, tasks and repeated words: every part of the state has something to hold. */
export function pages(count: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 40 + ((i * 7) % 60) }, (_, j) => WORDS[(i * 5 + j * j) % WORDS.length]);
    out[`notes/p${i}.md`] =
      `---\nrating: ${i % 5}\ntags: [t${i % 3}]\n---\n# Page ${i} ${WORDS[i % WORDS.length]}\n\n${words.join(' ')} [[p${(i + 1) % count}]]\n\n` +
      `- [${i % 2 ? 'x' : ' '}] buy soil ${i} 📅 2030-01-0${1 + (i % 9)}\n`;
  }
  return out;
}

/** Everything a state answers: search, metas, graph, tasks and a query over fields. */
export async function answers(k: Knowledge) {
  const query = await k.query({ where: { '>=': [{ var: 'rating' }, 2] }, sort: [{ field: 'path' }], limit: 100 }, () => true, 2000);
  return {
    search: QUERIES.map((q) => k.search(q).results),
    metas: [...k.metas.values()].sort((a, b) => a.path.localeCompare(b.path)),
    backlinks: [...k.metas.keys()].sort().map((p) => k.graph.backlinks(p)),
    tasks: k.tasks({ status: 'all', limit: 1000 }).tasks,
    query: query.rows,
    commit: k.indexedCommit,
  };
}
