import type { CommitInfo } from '../git/repo.js';

const TRAILER = /^([A-Za-z0-9-]+): (.*)$/;

export interface CommitMeta {
  at: string;
  actor: string;
  message: string;
  /** The `Quire-Credential` trailer: the id of the key, grant or session that made it. */
  credential?: string;
  /** The `Quire-Agent` trailer: the agent whose key made it. */
  agent?: string;
  /** The key's name, from `Quire-Actor: key:<name>`. */
  key?: string;
  /** The connected app's name, from `Quire-Actor: app:<name>`. */
  app?: string;
}

/**
 * Who made a commit and why, as the change feed reports it. The actor is the
 * `Quire-Actor` trailer when the commit has one, else the author name (the server writes
 * `key:<id>`-style names there); the message is the commit message without its trailers.
 * Commits made outside the server have no trailers: no credential, agent, key or app.
 */
export function commitMeta(commit: CommitInfo): CommitMeta {
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
  const actor = trailers.get('quire-actor');
  const via = actor?.match(/^(key|app):(.*)$/);
  const credential = trailers.get('quire-credential');
  const agent = trailers.get('quire-agent');
  return {
    at: new Date(commit.author.timestamp * 1000).toISOString(),
    actor: actor ?? commit.author.name,
    message: paragraphs.join('\n\n'),
    ...(credential ? { credential } : {}),
    ...(agent ? { agent } : {}),
    ...(via ? { [via[1]]: via[2] } : {}),
  };
}
