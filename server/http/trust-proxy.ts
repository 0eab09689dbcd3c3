import { isIP, isIPv4 } from 'node:net';

/** What express's `trust proxy` setting takes: off, every hop, a hop count, or proxy addresses. */
export type TrustProxy = boolean | number | string[];

/** The names proxy-addr (express's parser) knows for its own address ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a subnet (`10.0.0.0/8`, `fd00::/8`, `10.0.0.0/255.0.0.0`) or a range name. */
function isProxyAddress(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [ip, range, ...rest] = entry.split('/');
  const family = isIP(ip);
  if (!family || rest.length) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIPv4(range);
}

/**
 * `QUIRE_TRUST_PROXY`: which `X-Forwarded-For` hops to believe when taking `req.ip`. Off
 * unless set, because without a proxy in front anyone could name their own address.
 * Problems are worded to follow the variable's name.
 */
export function parseTrustProxy(value: string | undefined, problems: string[]): TrustProxy {
  const raw = (value ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isProxyAddress(entry));
  if (bad.length) {
    problems.push(
      `must be true, a hop count, or a comma list of addresses, subnets and loopback/linklocal/uniquelocal: ${bad.map((entry) => entry || '(empty)').join(', ')}`,
    );
  }
  return entries;
}
