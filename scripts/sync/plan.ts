/**
 * What to do with one path, from three hashes: `base` (what both sides last agreed on),
 * `local` (the folder now) and `remote` (the server now); undefined is "no file". The rules,
 * in order:
 * - both sides equal → just remember it as the new base;
 * - only the server changed → take its version (or delete the local file);
 * - only the folder changed → send it (or delete it on the server);
 * - both changed: a deletion loses to an edit (the edited file comes back on the other side);
 *   two edits are merged, or the local one becomes a conflict copy (see Pass.resolve).
 */
export type Action =
  | { kind: 'agree'; path: string; hash: string | undefined }
  | { kind: 'download'; path: string; hash: string }
  | { kind: 'delete-local'; path: string }
  | { kind: 'upload'; path: string; base: string | null }
  | { kind: 'delete-remote'; path: string; base: string }
  | { kind: 'resolve'; path: string; base: string | undefined; remote: string };

export function planPath(path: string, base?: string, local?: string, remote?: string): Action | undefined {
  if (local === remote) return base === local ? undefined : { kind: 'agree', path, hash: local };
  if (local === base) return remote === undefined ? { kind: 'delete-local', path } : { kind: 'download', path, hash: remote };
  if (remote === base) {
    return local === undefined ? { kind: 'delete-remote', path, base: base! } : { kind: 'upload', path, base: remote ?? null };
  }
  if (local === undefined) return { kind: 'download', path, hash: remote! };
  if (remote === undefined) return { kind: 'upload', path, base: null };
  return { kind: 'resolve', path, base, remote };
}
