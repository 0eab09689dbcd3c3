import type { RequestHandler, Response } from 'express';
import type { Credential } from '../auth/credential.js';
import { credentialOf } from './authenticate.js';
import { EventStream, type StreamTiming } from '../http/event-stream.js';
import { rpcError } from './json-rpc.js';
import type { McpSession, SessionRegistry } from './sessions.js';

const HEADER = 'mcp-session-id';

/** A session's stream lives ten minutes, then the client reconnects with its current token. */
const SESSION_STREAM: StreamTiming = { keepAliveMs: 25_000, maxMs: 10 * 60_000 };

function isInitialize(body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === 'initialize';
}

/** The spec's answer to an unknown or ended session: the client starts a new one. */
function sessionNotFound(res: Response): void {
  res.status(404).json(rpcError(-32001, 'Session not found: start a new session with initialize, without Mcp-Session-Id'));
}

/**
 * The session of a POST: the one its `Mcp-Session-Id` names (null after answering 404 when
 * unknown, expired or another credential's), a new one for an `initialize` without the
 * header (its id goes out in the response header), or none: stateless, as without sessions.
 */
export function sessionOfPost(
  sessions: SessionRegistry,
  credential: Credential,
  body: unknown,
  res: Response,
): McpSession | undefined | null {
  const id = res.req.headers[HEADER];
  if (id === undefined) {
    if (!isInitialize(body)) return undefined;
    const session = sessions.create(credential);
    res.setHeader('Mcp-Session-Id', session.id);
    return session;
  }
  const session = typeof id === 'string' ? sessions.find(id, credential) : undefined;
  if (!session) sessionNotFound(res);
  return session ?? null;
}

/**
 * GET and DELETE are about a session: without the header they fall through to 405, before
 * credentials are asked for. So does HEAD, which express would otherwise route as a GET.
 */
export const namesSession: RequestHandler = (req, _res, next) =>
  next(req.headers[HEADER] === undefined || req.method === 'HEAD' ? 'route' : undefined);

/** `GET /mcp`: the session's stream of notifications outside any request (a second GET replaces the first). */
export function openStream(sessions: SessionRegistry): RequestHandler {
  return (req, res) => {
    const session = sessions.find(String(req.headers[HEADER]), credentialOf(req.auth));
    if (!session) return sessionNotFound(res);
    if (!req.headers.accept?.includes('text/event-stream'))
      return void res.status(406).json(rpcError(-32000, 'GET /mcp opens an event stream: send Accept: text/event-stream'));
    sessions.attach(session, new EventStream(res, SESSION_STREAM));
  };
}

/** `DELETE /mcp`: ends the session, its stream and its subscriptions. */
export function endSession(sessions: SessionRegistry): RequestHandler {
  return (req, res) => {
    const id = String(req.headers[HEADER]);
    if (!sessions.find(id, credentialOf(req.auth))) return sessionNotFound(res);
    sessions.end(id);
    res.status(204).end();
  };
}
