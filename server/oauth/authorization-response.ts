/**
 * The redirect back to the client, always naming the issuer (RFC 9207) with exactly the
 * string the metadata publishes, so a client can tell which server answered.
 */
export function authorizationResponse(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.href;
}
