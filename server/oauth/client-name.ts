export const MAX_CLIENT_NAME = 100;

/**
 * A client name is shown to the user on the consent page: plain, short, printable. Returns
 * the cleaned name, or undefined when too long (the caller refuses in its own protocol's words).
 */
export function cleanClientName(name: string | undefined, fallback = 'Unnamed app'): string | undefined {
  const clean = (name ?? '').replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  if (clean.length > MAX_CLIENT_NAME) return undefined;
  return clean || fallback;
}
