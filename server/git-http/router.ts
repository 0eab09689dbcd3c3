import express, { type Request, type Response, type Router } from 'express';
import type { ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { finished } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { isQuireError, QuireError } from '../../vault-store/errors.js';
import { HTTP_STATUS } from '../http/status.js';
import { setRateHeaders } from '../http/rate-headers.js';
import { silentLog, type Log } from '../../vault-store/log.js';
import { errorFields } from '../log/logger.js';
import type { Bucket } from '../accounts/plans.js';
import type { RateState } from '../ratelimit/limiter.js';
import { pktLine, startUploadPack } from './git-service.js';
import { startReceivePack } from './receive-pack.js';
import { spoolBody, type Spool } from './spool-body.js';

/** What a clone may read: the repository, and the rate-limit state to report. */
export interface CloneTarget {
  gitdir: string;
  rate?: RateState;
}

/** What a push may write: the repository, its byte limit, where its body waits, and the vault's write queue to run in. */
export interface PushTarget extends CloneTarget {
  /** Largest request body (after gzip) and pack git may receive: the caller's plan's. */
  maxBytes: number;
  /** The folder the request body is written to (in a `push-*` folder of its own) until git has read it. */
  spoolDir: string;
  /** Runs `receive` alone on the vault (`Workspace.receivePack`): may throw VAULT_BUSY. */
  exclusive: <T>(receive: () => Promise<T>) => Promise<T>;
}

export interface GitHttpOptions {
  /** Authenticates the request (throws a QuireError) and names the one repository it may read. */
  resolve: (req: Request) => Promise<CloneTarget>;
  /** Authenticates a push and names the repository it may write; without it, push answers 403 (read-only). */
  resolvePush?: (req: Request) => Promise<PushTarget>;
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
/** A receive-pack still running after this is stopped (SIGTERM: git removes its lock files), so the vault's queue moves on. */
const RECEIVE_TIMEOUT_MS = 10 * 60_000;

/**
 * `git clone` and `git push` of `{base}/vault.git` over smart HTTP: ref advertisement,
 * upload-pack and receive-pack, each a `git <service> --stateless-rpc` on the repository
 * `resolve` (or `resolvePush`) names. Errors are plain text, which git prints to the user;
 * 401 carries a Basic challenge so git asks for (or fails cleanly without) credentials.
 * Nothing else under /vault.git is served — in particular no dumb-HTTP file access.
 */
export function gitHttpRouter(options: GitHttpOptions): Router {
  const { resolve, resolvePush, gitBinary = 'git', log = silentLog } = options;
  const router = express.Router();

  router.get('/vault.git/info/refs', async (req, res) => {
    const service = req.query.service;
    if (service === 'git-receive-pack') {
      if (!resolvePush) return void (await serve(req, res, resolve, log, async () => void readOnly(res)));
      return void (await serve(req, res, resolvePush, log, async ({ gitdir, maxBytes }) => {
        const child = await start(res, () => startReceivePack({ gitBinary, gitdir, advertise: true, maxBytes }));
        if (!child) return;
        res.status(200).set(NO_CACHE).type('application/x-git-receive-pack-advertisement');
        res.write(`${pktLine('# service=git-receive-pack\n')}0000`);
        pipeOut(child, res, log, 'receive-pack');
        child.stdin!.end();
      }));
    }
    await serve(req, res, resolve, log, async ({ gitdir }) => {
      if (service !== 'git-upload-pack') {
        return void res.status(403).type('text/plain').send('Only smart HTTP is served: use git 1.6.6 or later.\n');
      }
      const protocol = req.get('Git-Protocol');
      const child = await start(res, () => startUploadPack({ gitBinary, gitdir, advertise: true, protocol }));
      if (!child) return;
      res.status(200).set(NO_CACHE).type('application/x-git-upload-pack-advertisement');
      // Protocol v2 starts with its capability list; v0/v1 clients expect this banner first.
      if (!/(^|:)version=2(:|$)/.test(protocol ?? '')) res.write(`${pktLine('# service=git-upload-pack\n')}0000`);
      pipeOut(child, res, log, 'upload-pack');
      child.stdin!.end();
    });
  });

  router.post('/vault.git/git-upload-pack', async (req, res) => {
    await serve(req, res, resolve, log, async ({ gitdir }) => {
      const child = await start(res, () => startUploadPack({ gitBinary, gitdir, advertise: false, protocol: req.get('Git-Protocol') }));
      if (!child) return;
      res.status(200).set(NO_CACHE).type('application/x-git-upload-pack-result');
      pipeOut(child, res, log, 'upload-pack');
      // A client that stops reading mid-pack must not leave git running; the request body
      // ending is normal (git answers after it) and is no reason to stop.
      const body = gunzipped(req);
      body.on('error', () => child.kill());
      child.stdin!.on('error', () => undefined);
      body.pipe(child.stdin!);
    });
  });

  router.post('/vault.git/git-receive-pack', async (req, res) => {
    if (!resolvePush) return void (await serve(req, res, resolve, log, async () => void readOnly(res)));
    await serve(req, res, resolvePush, log, async ({ gitdir, maxBytes, spoolDir, exclusive }) => {
      // The whole request first, to a file, so the vault's queue is held only while git works,
      // never while a slow client uploads, and memory does not grow with the push; refused
      // (413) as soon as it passes the limit. The file goes once git is done, whatever happened
      // (spoolBody removes it itself when the upload fails).
      const spool = await spoolBody(gunzipped(req), maxBytes, spoolDir);
      await receiveFromFile(res, spool, { gitBinary, gitdir, maxBytes, exclusive, log });
    });
  });

  router.all('/vault.git/{*rest}', (_req, res) => {
    res.status(404).type('text/plain').send('Not found: only git-upload-pack and git-receive-pack are served here.\n');
  });
  return router;
}

function readOnly(res: Response): void {
  res.status(403).type('text/plain').send(READ_ONLY);
}

/** The request body, gunzipped when sent so; a client leaving mid-body breaks the gunzipped stream too. */
function gunzipped(req: Request): NodeJS.ReadableStream {
  if (req.get('Content-Encoding') !== 'gzip') return req;
  const gunzip = createGunzip();
  finished(req, (err) => err && gunzip.destroy(err));
  return req.pipe(gunzip);
}

/** Authenticates, then runs `handle`; QuireErrors become their status with a plain-text message. */
async function serve<T extends CloneTarget>(
  req: Request,
  res: Response,
  resolve: (req: Request) => Promise<T>,
  log: Log,
  handle: (target: T) => Promise<void>,
): Promise<void> {
  try {
    const target = await resolve(req);
    if (target.rate) setRateHeaders(res, target.rate);
    await handle(target);
  } catch (err) {
    if (!isQuireError(err) || res.headersSent) log.error(errorFields(err), 'git http failed');
    // An error after git answered (following the branch) must not cut off its report: the ref moved.
    if (res.headersSent) return void (res.writableEnded || res.destroy());
    if (!isQuireError(err)) return void res.status(500).type('text/plain').send('Internal error\n');
    sendPlainError(res, err);
  }
}

function sendPlainError(res: Response, err: QuireError): void {
  if (err.code === 'UNAUTHENTICATED') res.set('WWW-Authenticate', 'Basic realm="quire"');
  const { retry_after: retryAfter, bucket, limit } = err.details;
  if (typeof retryAfter === 'number') res.set('Retry-After', String(Math.ceil(retryAfter)));
  if (err.code === 'RATE_LIMITED') setRateHeaders(res, { bucket: bucket as Bucket, limit: limit as number, remaining: 0 });
  // A refused body is not read to its end: close the connection rather than drain it.
  if (err.code === 'PAYLOAD_TOO_LARGE') res.set('Connection', 'close');
  res.status(HTTP_STATUS[err.code]).type('text/plain').send(`${err.message}\n`);
}

/**
 * Runs receive-pack in the vault's queue on the spooled body, answering with its report, and
 * deletes the body whatever happens. The response ends once the workspace has followed the
 * branch (in `exclusive`), so a read right after `git push` returns sees the pushed pages,
 * and once the file is gone.
 */
async function receiveFromFile(
  res: Response,
  spool: Spool,
  target: Pick<PushTarget, 'gitdir' | 'maxBytes' | 'exclusive'> & { gitBinary: string; log: Log },
): Promise<void> {
  const { gitBinary, gitdir, maxBytes, exclusive, log } = target;
  let answering = false;
  try {
    await exclusive(async () => {
      const child = await start(res, () => startReceivePack({ gitBinary, gitdir, advertise: false, maxBytes }));
      if (!child) return;
      answering = true;
      res.status(200).set(NO_CACHE).type('application/x-git-receive-pack-result');
      // Never killed because the client left: git may be moving the branch or the working
      // tree. Its input is complete on disk, so it ends on its own; a file that cannot be
      // read stops it (SIGTERM: git removes its lock files) rather than leave it waiting.
      pipeOut(child, res, log, 'receive-pack', true);
      const timer = setTimeout(() => child.kill('SIGTERM'), RECEIVE_TIMEOUT_MS);
      const file = createReadStream(spool.path);
      file.on('error', () => child.kill('SIGTERM'));
      child.stdin!.on('error', () => undefined);
      file.pipe(child.stdin!);
      await new Promise((done) => child.once('close', done));
      clearTimeout(timer);
      file.destroy();
    });
  } finally {
    try {
      await spool.remove();
    } finally {
      if (answering && !res.writableEnded) res.end();
    }
  }
}

/** The running git, or undefined after answering 501 because git is missing. */
async function start(res: Response, run: () => Promise<ChildProcess>): Promise<ChildProcess | undefined> {
  try {
    return await run();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    res.status(501).type('text/plain').send('git clone and push are not available: git is not installed on this server.\n');
    return undefined;
  }
}

/**
 * Streams git's output as the response and logs git's failures with the start of its
 * stderr. A git that only reads is stopped if the response closes first (SIGKILL: it has
 * nothing to clean up). A `receiving` git is left to finish, its output drained, and the
 * response is ended by its route, once the vault has followed the push.
 */
function pipeOut(child: ChildProcess, res: Response, log: Log, service: 'upload-pack' | 'receive-pack', receiving = false): void {
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString();
  });
  child.stdout!.pipe(res, { end: !receiving });
  res.on('close', () => {
    if (receiving) child.stdout!.resume();
    else if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.on('exit', (code) => {
    if (code) log.warn({ code, stderr: stderr.trim() }, `git ${service} failed`);
  });
}
