import type { CommitInfo } from '../git/repo.js';

const TRAILER = /^([A-Za-z0-9-]+): (.*)$/;

/**
 * Who made a commit and why, from its author and the trailers the server writes
 * (`server/auth/credential.ts` authorFor). Fields a commit does not record are absent:
 * commits from git itself, and those the server made before a trailer existed.
 */
export interface CommitMeta {
  /** The author date (ISO 8601). */
  at: string;
  /** `key:<name>`, `app:<name>`, `account:<name>` or `external` from `Quire-Actor`; else the author name. */
  actor: string;
  /** The commit message without its trailers. */
  message: string;
  /** The git author name. */
  author: string;
  /** `Quire-Credential`: the key id, OAuth grant id or session id. */
  credential?: string;
  /** `Quire-Agent`: the agent the credential is bound to. */
  agent?: string;
  /** The API key's name, from `Quire-Actor: key:<name>`. */
  key?: string;
  /** The OAuth app's name, from `Quire-Actor: app:<name>`. */
  app?: string;
  /** `Quire-App`: the OAuth client id (recorded since issue 13). */
  app_id?: string;
  /** `Quire-Device`: the device key's name, for writes made with a device key (since issue 13). */
  device?: string;
  /** `Quire-Moved-From` / `Quire-Moved-To`: the rename a `move` commit made. */
  moved?: { from: string; to: string };
}

/** The trailers of a commit message (keys lower-cased) and the message without them. */
function splitTrailers(message: string): { body: string; trailers: Map<string, string> } {
  const paragraphs = message.trimEnd().split(/\n\n/);
  const last = paragraphs.length > 1 ? paragraphs[paragraphs.length - 1].split('\n') : [];
  const trailers = new Map<string, string>();
  if (last.length > 0 && last.every((line) => TRAILER.test(line))) {
    for (const line of last) {
      const [, key, value] = TRAILER.exec(line)!;
      trailers.set(key.toLowerCase(), value);
    }
    paragraphs.pop();
  }
  return { body: paragraphs.join('\n\n'), trailers };
}

/** Who made a commit and why (see CommitMeta). */
export function commitMeta(commit: CommitInfo): CommitMeta {
  const { body, trailers } = splitTrailers(commit.message);
  const actor = trailers.get('quire-actor') ?? commit.author.name;
  const meta: CommitMeta = { at: new Date(commit.author.timestamp * 1000).toISOString(), actor, message: body, author: commit.author.name };
  const via = /^(key|app):(.*)$/.exec(actor);
  if (via) meta[via[1] as 'key' | 'app'] = via[2];
  const optional = { credential: 'quire-credential', agent: 'quire-agent', app_id: 'quire-app', device: 'quire-device' } as const;
  for (const [field, trailer] of Object.entries(optional) as [keyof typeof optional, string][]) {
    const value = trailers.get(trailer);
    if (value !== undefined) meta[field] = value;
  }
  const [from, to] = [trailers.get('quire-moved-from'), trailers.get('quire-moved-to')];
  if (from !== undefined && to !== undefined) meta.moved = { from, to };
  return meta;
}

/** Whose commits to pick: any of the three given must all match. */
export interface MadeBy {
  agent?: string;
  key?: string;
  app?: string;
}

/**
 * Whether a commit was made by the credential named: `agent` is the agent's name; `key` a
 * key's name or credential id; `app` an OAuth app's name, client id or grant id. Commits made
 * before a trailer was recorded match only by what they hold. History and revert share it.
 */
export function madeBy(meta: CommitMeta, by: MadeBy): boolean {
  if (by.agent !== undefined && meta.agent !== by.agent) return false;
  if (by.key !== undefined && (meta.key === undefined || (meta.key !== by.key && meta.credential !== by.key))) return false;
  if (by.app !== undefined && (meta.app === undefined || ![meta.app, meta.app_id, meta.credential].includes(by.app))) return false;
  return true;
}
