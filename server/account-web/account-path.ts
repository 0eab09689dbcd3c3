import type { Config } from '../config.js';

/** Where the account area is mounted: the path of `config.accountUrl`, without a trailing slash ('' for the root). */
export function accountPath(config: Pick<Config, 'accountUrl'>): string {
  return new URL(config.accountUrl).pathname.replace(/\/+$/, '');
}
