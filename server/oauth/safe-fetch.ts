import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface SafeFetchOptions {
  /** Loopback addresses may be fetched: only when this server itself runs on loopback (tests, local use). */
  allowLoopback: boolean;
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  maxBytes: number;
  /** Certificates trusted in place of the system's: a test's self-signed server. */
  ca?: string;
  /** Name resolution, replaceable so a test can make a public-looking name resolve anywhere. */
  lookup?: typeof dnsLookup;
}

export interface Fetched {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A fetch this module would not make or finish; the message says why, for the client to read. */
export class FetchRefused extends Error {}

/**
 * The address and its range (`10.0.0.1 (private)`) when it may not be fetched, or undefined
 * for a public unicast one. ipaddr.js names
 * the special ranges (private, CGNAT, link-local, unique-local, multicast, reserved, 6to4,
 * NAT64 …); anything that is not plain unicast is refused, and `process` turns an IPv4-mapped
 * IPv6 address into the IPv4 address it stands for before the check.
 */
export function addressRefusal(address: string, allowLoopback: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} (not an IP address)`;
  const range = ipaddr.process(address).range();
  if (range === 'unicast' || (range === 'loopback' && allowLoopback)) return undefined;
  return `${address} (${range})`;
}

/**
 * Resolves every address of a name and refuses the connection if any is not public: the
 * socket then connects to an address this function returned, so a DNS answer that changes
 * between a check and the connection (rebinding) cannot slip a private address in.
 */
function guardedLookup(options: SafeFetchOptions): LookupFunction {
  const resolve = options.lookup ?? dnsLookup;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, found) => {
      if (error) return callback(error, '');
      const addresses = found as unknown as LookupAddress[];
      const refusal = addresses.map((a) => addressRefusal(a.address, options.allowLoopback)).find(Boolean);
      if (refusal || addresses.length === 0)
        return callback(new FetchRefused(`${hostname} resolves to ${refusal ?? 'no address'}, not a public address`), '');
      if (lookupOptions.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * One GET that follows no redirect, answers within `timeoutMs`, reads at most `maxBytes`, and
 * connects only to public addresses (or loopback when allowed). An IP-literal host is checked
 * here, as the socket does not look it up.
 */
export function safeFetch(url: URL, options: SafeFetchOptions): Promise<Fetched> {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  const refusal = isIP(literal) ? addressRefusal(literal, options.allowLoopback) : undefined;
  if (refusal) return Promise.reject(new FetchRefused(`${refusal} is not a public address`));
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      { method: 'GET', headers: { accept: 'application/json' }, lookup: guardedLookup(options), agent: false, ca: options.ca },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        if (Number(response.headers['content-length']) > options.maxBytes) return fail(tooLarge());
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) fail(tooLarge());
          else chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', fail);
      },
    );
    const tooLarge = () => new FetchRefused(`the response is larger than ${options.maxBytes} bytes`);
    const fail = (error: Error) => {
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new FetchRefused(`no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('error', fail);
    request.end();
  });
}
