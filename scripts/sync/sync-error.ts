/**
 * What stops a sync, in words a person can act on. `fatal` errors end the run (wrong server,
 * revoked key); the others end one step and the run goes on or is retried later.
 */
export type SyncErrorKind = 'server' | 'auth' | 'key' | 'disk' | 'refused' | 'network' | 'state';

export class SyncError extends Error {
  constructor(
    readonly kind: SyncErrorKind,
    message: string,
    /** The server's error code, when it sent one. */
    readonly code?: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SyncError';
  }

  get fatal(): boolean {
    return this.kind === 'server' || this.kind === 'auth' || this.kind === 'key' || this.kind === 'disk' || this.kind === 'state';
  }
}

/** A local file-system error as a SyncError: a full disk ends the run with a clear message. */
export function diskError(err: unknown, path: string): SyncError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new SyncError('disk', `The disk is full: could not write ${path}. Free some space and run quire sync again.`);
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new SyncError('disk', `Cannot write ${path} (${code}): check the folder's permissions.`);
  }
  return new SyncError('refused', `Could not write ${path}: ${(err as Error).message}`);
}
