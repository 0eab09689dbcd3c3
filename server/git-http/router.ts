import express, { type Request, type Response, type Router } from 'express';
import type { ChildProcess } from 'node:child_process';
import { createGunzip } from 'node:zlib';
import { isQuireError } from '../../vault-store/errors.js';
import { HTTP_STATUS } from '../http/status.js';
import { silentLog, type Log } from '../../vault-store/log.js';
import { errorFields } from '../log/logger.js';
import { pktLine, startUploadPack } from './upload-pack.js';

export interface GitHttpOptions {
  /** Authenticates the request (throws a QuireError) and names the one repository it may read. */
  resolve: (req: Request) => Promise<{ gitdir: string }>;
  /** The git executable; `git` on PATH by default. */
  gitBinary?: string;
  /** Where git's own failures go; nowhere by default. */
  log?: Log;
}

const NO_CACHE = {
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  Pragma: 'no-cache',
};
const READ_ONLY = 'This vault is read-only over git: push is not supported. Write pages through the API.\n';

/**
 * `git clone {base}/vault.git` over smart HTTP, read-only: ref advertisement and
 * upload-pack, each a `git upload-pack --stateless-rpc` on the repository `resolve` names.
 * Errors are plain text, which git prints to the user; 401 carries a Basic challenge so
 * git asks for (or fails cleanly without) credentials. Nothing else under /vault.git is
 * served — in particular no dumb-HTTP file access.
 */
export function gitHttpRouter(options: GitHttpOptions): Router {
  const { resolve, gitBinary = 'git', log = silentLog } = options;
  const router = express.Router();

  router.get('/vault.git/info/refs', async (req, res) => {
    const service = req.query.service;
    await serve(req, res, resolve, log, async (gitdir) => {
      if (service === 'git-receive-pack') return void res.status(403).type('text/plain').send(READ_ONLY);
      if (service !== 'git-upload-pack') {
        return void res.status(403).type('text/plain').send('Only smart HTTP is served: use git 1.6.6 or later.\n');
      }
      const protocol = req.get('Git-Protocol');
      const child = await start(res, { gitBinary, gitdir, advertise: true, protocol });
      if (!child) return;
      res.status(200).set(NO_CACHE).type('application/x-git-upload-pack-advertisement');
      // Protocol v2 starts with its capability list; v0/v1 clients expect this banner first.
      if (!/(^|:)version=2(:|$)/.test(protocol ?? '')) res.write(`${pktLine('# service=git-upload-pack\n')}0000`);
      pipeOut(child, res, log);
      child.stdin!.end();
    });
  });

  router.post('/vault.git/git-upload-pack', async (req, res) => {
    await serve(req, res, resolve, log, async (gitdir) => {
      const child = await start(res, { gitBinary, gitdir, advertise: false, protocol: req.get('Git-Protocol') });
      if (!child) return;
      res.status(200).set(NO_CACHE).type('application/x-git-upload-pack-result');
      pipeOut(child, res, log);
      // A client that stops reading mid-pack must not leave git running; the request body
      // ending is normal (git answers after it) and is no reason to stop.
      const body = req.get('Content-Encoding') === 'gzip' ? req.pipe(createGunzip()) : req;
      body.on('error', () => child.kill());
      child.stdin!.on('error', () => undefined);
      body.pipe(child.stdin!);
    });
  });

  router.post('/vault.git/git-receive-pack', async (req, res) => {
    await serve(req, res, resolve, log, async () => void res.status(403).type('text/plain').send(READ_ONLY));
  });

  router.all('/vault.git/{*rest}', (_req, res) => {
    res.status(404).type('text/plain').send('Not found: only git-upload-pack is served here.\n');
  });
  return router;
}

/** Authenticates, then runs `handle`; QuireErrors become their status with a plain-text message. */
async function serve(
  req: Request,
  res: Response,
  resolve: GitHttpOptions['resolve'],
  log: Log,
  handle: (gitdir: string) => Promise<void>,
): Promise<void> {
  try {
    const { gitdir } = await resolve(req);
    await handle(gitdir);
  } catch (err) {
    if (res.headersSent) return void res.destroy();
    if (!isQuireError(err)) {
      log.error(errorFields(err), 'git http failed');
      return void res.status(500).type('text/plain').send('Internal error\n');
    }
    if (err.code === 'UNAUTHENTICATED') res.set('WWW-Authenticate', 'Basic realm="quire"');
    const retryAfter = err.details.retry_after;
    if (typeof retryAfter === 'number') res.set('Retry-After', String(Math.ceil(retryAfter)));
    res.status(HTTP_STATUS[err.code]).type('text/plain').send(`${err.message}\n`);
  }
}

/** The running upload-pack, or undefined after answering 501 because git is missing. */
async function start(res: Response, input: Parameters<typeof startUploadPack>[0]): Promise<ChildProcess | undefined> {
  try {
    return await startUploadPack(input);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    res.status(501).type('text/plain').send('git clone is not available: git is not installed on this server.\n');
    return undefined;
  }
}

/** Streams git's output as the response and stops git if the response closes first. */
function pipeOut(child: ChildProcess, res: Response, log: Log): void {
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString();
  });
  child.stdout!.pipe(res);
  // SIGKILL: upload-pack only reads, so there is nothing for it to clean up.
  res.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.on('exit', (code) => {
    if (code) log.warn({ code, stderr: stderr.trim() }, 'git upload-pack failed');
  });
}
