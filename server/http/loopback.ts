/** The spellings of this machine that local clients use interchangeably. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.includes(hostname);
}

/** The URL with the base URL's host when it is another loopback spelling of the same scheme and port. */
function respelled(url: URL, base: URL): URL | undefined {
  if (!isLoopbackHost(base.hostname) || !isLoopbackHost(url.hostname)) return undefined;
  if (url.protocol !== base.protocol || url.port !== base.port || url.username || url.password) return undefined;
  const copy = new URL(url);
  copy.hostname = base.hostname;
  return copy;
}

/**
 * A URL as the configured base URL spells it: with a loopback base, `localhost`, `127.0.0.1`
 * and `[::1]` on the base's scheme and port name the same server. Anything else is returned
 * as given, so a non-loopback base URL stays exact.
 */
export function asBaseSpelling(url: URL, baseUrl: string): string {
  return (respelled(url, new URL(baseUrl)) ?? url).href;
}

/**
 * The base URL as a request spelled it in its Host header: with a loopback base, another
 * loopback spelling of the same port; otherwise (a foreign host, another port, no Host) the
 * configured base URL. Used where a client compares our answer with the URL it typed.
 */
export function baseUrlAsRequested(baseUrl: string, host: string | undefined): string {
  const base = new URL(baseUrl);
  if (!host || !isLoopbackHost(base.hostname) || !URL.canParse(`${base.protocol}//${host}`)) return baseUrl;
  const requested = new URL(`${base.protocol}//${host}`);
  if (requested.host !== host.toLowerCase() || !respelled(requested, base)) return baseUrl;
  return `${requested.origin}${base.pathname.replace(/\/$/, '')}`;
}
