import type { CommitInfo } from '../git/repo.js';

const TRAILER = /^([A-Za-z0-9-]+): (.*)$/;

/**
 * Who made a commit and why, as the change feed reports it. The actor is the
 * `Quire-Actor` trailer when the commit has one, else the author name (the server writes
 * `key:<id>`-style names there); the message is the commit message without its trailers.
 */
export function commitMeta(commit: CommitInfo): { at: string; actor: string; message: string } {
  const paragraphs = commit.message.trimEnd().split(/\n\n/);
  const last = paragraphs.length > 1 ? paragraphs[paragraphs.length - 1].split('\n') : [];
  const trailers = new Map<string, string>();
  if (last.length > 0 && last.every((line) => TRAILER.test(line))) {
    for (const line of last) {
      const [, key, value] = TRAILER.exec(line)!;
      trailers.set(key.toLowerCase(), value);
    }
    paragraphs.pop();
  }
  return {
    at: new Date(commit.author.timestamp * 1000).toISOString(),
    actor: trailers.get('quire-actor') ?? commit.author.name,
    message: paragraphs.join('\n\n'),
  };
}
