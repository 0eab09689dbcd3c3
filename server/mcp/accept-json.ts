import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/** What the SDK's transport insists on before it answers a POST. */
const BOTH = 'application/json, text/event-stream';

/** Replaces (or adds) a request header where the SDK's transport reads it: Node's raw header list. */
function setRawHeader(req: IncomingMessage, name: string, value: string): void {
  let found = false;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === name) {
      req.rawHeaders[i + 1] = value;
      found = true;
    }
  }
  if (!found) req.rawHeaders.push(name, value);
  req.headers[name] = value;
}

/**
 * A POST is answered as JSON unless it asks for progress and the client reads SSE
 * (`res.locals.readsEventStream`, noted here before the header is completed), so a client
 * that accepts JSON alone (or anything, or says nothing) can read it. The SDK's transport
 * answers 406 unless Accept names both types, and it rebuilds the request from the raw
 * headers: the header is completed there. A client that accepts neither still gets the SDK's 406.
 */
export const acceptJsonAlone: RequestHandler = (req, res, next) => {
  const accept = req.headers.accept;
  const readsJson = accept === undefined || /application\/json|application\/\*|\*\/\*/.test(accept);
  res.locals.readsEventStream = accept?.includes('text/event-stream') === true;
  if (readsJson && !res.locals.readsEventStream) setRawHeader(req, 'accept', BOTH);
  next();
};
