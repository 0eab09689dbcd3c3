import { join } from 'node:path';
import { JsonFile } from '../accounts/json-file.js';
import { hashSecret, newToken } from '../accounts/secrets.js';

const LINK_PREFIX = 'qsl_';
export const SIGNIN_LINK_LIFETIME_MS = 24 * 60 * 60_000;

interface LinkRecord {
  hash: string;
  user: string;
  expires_at: number;
}

interface LinksDoc {
  version: 1;
  links: LinkRecord[];
}

/**
 * One-time sign-in links that let a user set their password: written by the CLI (first
 * run, `quire user add`) and redeemed by the running server through the shared file.
 * Stored hashed; a link works once and for a day.
 */
export class SigninLinks {
  private readonly file: JsonFile<LinksDoc>;

  constructor(dataDir: string, private readonly now: () => number = Date.now) {
    this.file = new JsonFile<LinksDoc>(join(dataDir, 'signin-links.json'), () => ({ version: 1, links: [] }));
  }

  /** A new token for the user; earlier unused links of the same user stop working. */
  async create(user: string): Promise<string> {
    const token = newToken(LINK_PREFIX);
    await this.file.update((doc) => {
      doc.links = doc.links.filter((l) => l.user !== user && l.expires_at > this.now());
      doc.links.push({ hash: hashSecret(token), user, expires_at: this.now() + SIGNIN_LINK_LIFETIME_MS });
    });
    return token;
  }

  /** The user a live token is for, without using it up (showing the form). */
  peek(token: string): string | undefined {
    return this.live(this.file.read(), token)?.user;
  }

  /** Uses the token up: the user it was for, or undefined if unknown, expired or used. */
  async redeem(token: string): Promise<string | undefined> {
    return this.file.update((doc) => {
      const link = this.live(doc, token);
      doc.links = doc.links.filter((l) => l !== link && l.expires_at > this.now());
      return link?.user;
    });
  }

  private live(doc: LinksDoc, token: string): LinkRecord | undefined {
    if (!token.startsWith(LINK_PREFIX)) return undefined;
    const hash = hashSecret(token);
    return doc.links.find((l) => l.hash === hash && l.expires_at > this.now());
  }
}

/** Where a sign-in link points: the account area's welcome page. */
export function signinUrl(accountUrl: string, token: string): string {
  return `${accountUrl}/welcome?token=${encodeURIComponent(token)}`;
}
