/**
 * A stand-in embeddings model with one dimension per topic: synonyms land together, as with
 * a real model, so "loaf" (in no page) finds the bread page only by meaning.
 */
const TOPICS = [
  ['compost', 'pile', 'mulch'],
  ['bread', 'sourdough', 'loaf', 'starter'],
  ['cedar', 'beds', 'boards'],
];

export function topicVector(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  return TOPICS.map((topic) => words.filter((w) => topic.includes(w)).length + 0.01);
}
