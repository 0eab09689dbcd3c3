import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** A self-signed certificate for 127.0.0.1 and localhost, made once per test run: no key in the repository. */
function loopbackCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'quire-tls-'));
  try {
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];
    const names = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'];
    execFileSync('openssl', [...args, ...names, '-keyout', 'key.pem', '-out', 'cert.pem'], { cwd: dir, stdio: 'ignore' });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const LOOPBACK = loopbackCertificate();
/** Trusted by the tests that fetch from the document server. */
export const LOOPBACK_CERT = LOOPBACK.cert;
const LOOPBACK_KEY = LOOPBACK.key;

export type Responder = (req: IncomingMessage, res: ServerResponse) => void;

/** A client's web site on loopback, over https and plain http, counting the requests per path. */
export interface DocumentServer {
  httpsUrl: (path: string) => string;
  httpUrl: (path: string) => string;
  serve: (path: string, responder: Responder) => void;
  /** Serves `document` (its client_id set to the https URL unless given) as JSON with these headers. */
  serveDocument: (path: string, document: Record<string, unknown>, headers?: Record<string, string>, overHttp?: boolean) => string;
  hits: (path: string) => number;
  close: () => Promise<void>;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const routes = new Map<string, Responder>();
  const counts = new Map<string, number>();
  const handler: Responder = (req, res) => {
    const path = req.url ?? '';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (route) return route(req, res);
    res.writeHead(404).end();
  };
  const secure = https.createServer({ cert: LOOPBACK_CERT, key: LOOPBACK_KEY }, handler);
  const plain = http.createServer(handler);
  const [securePort, plainPort] = [await listen(secure), await listen(plain)];
  const httpsUrl = (path: string) => `https://127.0.0.1:${securePort}${path}`;
  const httpUrl = (path: string) => `http://127.0.0.1:${plainPort}${path}`;
  const serve = (path: string, responder: Responder) => void routes.set(path, responder);
  return {
    httpsUrl,
    httpUrl,
    serve,
    serveDocument: (path, document, headers = {}, overHttp = false) => {
      const url = overHttp ? httpUrl(path) : httpsUrl(path);
      const body = JSON.stringify({ client_id: url, ...document });
      serve(path, (_req, res) => res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body));
      return url;
    },
    hits: (path) => counts.get(path) ?? 0,
    close: async () => {
      for (const server of [secure, plain]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
