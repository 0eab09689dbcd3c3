import type { IndexChange } from './git/index-file.js';
import type { GitRepo, Signature } from './git/repo.js';
import type { ChangedFile } from './manifest-follow.js';

/** Who a commit is for: the author line plus trailers naming key, agent, etc. */
export interface Author extends Signature {
  trailers?: Record<string, string>;
}

/** Edits made in the working tree (Obsidian, a text editor, git pull) are committed as this author. */
export const EXTERNAL_AUTHOR: Author = {
  name: 'external',
  email: 'external@quire.invalid',
  trailers: { 'Quire-Actor': 'external' },
};

/** A commit that landed on the branch, as commit listeners hear of it. */
export interface CommitEvent {
  commit: string;
  parent: string;
  at: Date;
  author: Author;
  changes: ChangedFile[];
}

/** A commit's message: the subject, then the trailers that say who wrote it (one line each). */
export function commitMessage(subject: string, trailers: Record<string, string> = {}): string {
  const lines = Object.entries(trailers).map(([k, v]) => `${k}: ${v.replace(/\n/g, ' ')}`);
  return lines.length ? `${subject}\n\n${lines.join('\n')}\n` : `${subject}\n`;
}

/** The index entries for a commit's changes: files as the server writes them (mode 100644). */
export function indexChanges(
  changes: { path: string; oid: string | null; content: Uint8Array | { size: number } | null }[],
): IndexChange[] {
  return changes.map(({ path, oid, content }) => ({ path, oid, mode: 0o100644, size: content === null ? undefined : sizeOf(content) }));
}

/** The byte size of a change's content: bytes in hand, or a blob streamed to git. */
export function sizeOf(content: Uint8Array | { size: number }): number {
  return content instanceof Uint8Array ? content.byteLength : content.size;
}

/** Every file of a tree as index entries are made from: path, blob id, numeric mode. */
export async function indexFiles(repo: GitRepo, tree: string): Promise<{ path: string; oid: string; mode: number }[]> {
  return (await repo.trees.files(tree)).map((f) => ({ path: f.path, oid: f.oid, mode: parseInt(f.mode, 8) }));
}
