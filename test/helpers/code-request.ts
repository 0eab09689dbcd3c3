import type { CodeRequest } from '../../server/oauth/grants-store.js';

/** An authorization-code request as the consent page files it, for tests of the grants store. */
export const codeRequest: CodeRequest = {
  client_id: 'c1',
  client_name: 'App',
  user: 'ann',
  scopes: ['mcp:read'],
  resource: 'http://q.test/mcp',
  redirect_uri: 'https://app.test/cb',
  challenge: 'ch',
};
