import { bearerToken } from '../auth/api-key.js';

/**
 * The API key a git client sent. git speaks HTTP Basic: any user name with the key as
 * password (`https://x:<key>@host/vault.git`, or typed at the prompt); a key given as the
 * user name with an empty password is accepted too, as many hosts do. `Authorization:
 * Bearer <key>` (via `git -c http.extraHeader=…`) works as on the REST API.
 */
export function gitKey(header: string | undefined): string | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!basic) return bearerToken(header);
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [user, password] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return password || user || undefined;
}
