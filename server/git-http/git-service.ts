import { spawn, type ChildProcess } from 'node:child_process';

/** GIT_PROTOCOL is handed to git as is: allow only what the protocol can contain. */
const PROTOCOL = /^[A-Za-z0-9=:,._-]{1,256}$/;

export type GitService = 'upload-pack' | 'receive-pack';

/**
 * Starts `git [-c …] <service> --stateless-rpc` on one repository. The environment is the
 * server's minus every GIT_* variable (GIT_DIR, GIT_OBJECT_DIRECTORY, alternates… could
 * point git at other repositories), plus the client's Git-Protocol header. Resolves once
 * the process runs; rejects with ENOENT when the binary is missing.
 */
export function startGitService(input: {
  gitBinary: string;
  service: GitService;
  gitdir: string;
  advertise: boolean;
  protocol?: string;
  /** `name=value` settings passed as `-c` before the service. */
  config?: readonly string[];
  /** Arguments after `--stateless-rpc [--advertise-refs]`, before the repository. */
  args?: readonly string[];
}): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('GIT_')) env[name] = value;
  if (input.protocol && PROTOCOL.test(input.protocol)) env.GIT_PROTOCOL = input.protocol;
  const args = [
    ...(input.config ?? []).flatMap((setting) => ['-c', setting]),
    input.service,
    '--stateless-rpc',
    ...(input.advertise ? ['--advertise-refs'] : []),
    ...(input.args ?? []),
    input.gitdir,
  ];
  const child = spawn(input.gitBinary, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

/** `git upload-pack` for clone and fetch. Proposals live on refs/quire/*: server bookkeeping, not part of the vault a clone gets. */
export function startUploadPack(input: {
  gitBinary: string;
  gitdir: string;
  advertise: boolean;
  protocol?: string;
}): Promise<ChildProcess> {
  return startGitService({ ...input, service: 'upload-pack', config: ['uploadpack.hideRefs=refs/quire'], args: ['--strict'] });
}

/** One pkt-line: four hex digits of length (including themselves), then the payload. */
export function pktLine(payload: string): string {
  return (payload.length + 4).toString(16).padStart(4, '0') + payload;
}
