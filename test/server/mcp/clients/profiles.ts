/**
 * What each mainstream MCP client sends to an authorization server, as exactly as its source or
 * its maintainers' reports show it. `connect.test.ts` replays each profile against a real server.
 * Every fact carries its source; "unverified" marks what no public source pinned down.
 */

/** What a client has learnt before it registers: the URL the user typed and the two metadata documents. */
export interface Discovery {
  /** The MCP URL as the user typed it into the client. */
  typedUrl: string;
  prm: { resource: string; scopes_supported?: string[] };
  as: { scopes_supported?: string[]; grant_types_supported?: string[] };
}

export type Registration =
  /** RFC 7591: the body POSTed to the registration endpoint. */
  | { kind: 'dcr'; body: (d: Discovery) => Record<string, unknown> }
  /** Client ID Metadata Document: the client's id is the URL of this document (`path` on our stand-in host). */
  | { kind: 'cimd'; path: string; document: (clientId: string) => Record<string, unknown> };

export interface ClientProfile {
  name: string;
  /** How the user's URL names this machine (`localhost` while the server is configured as 127.0.0.1). */
  host: 'localhost' | '127.0.0.1';
  registration: Registration;
  /** The redirect URI of the authorization request and the code exchange. */
  redirectUri: string;
  /** The `scope` of the authorization request (none: the parameter is left out). */
  scope: (d: Discovery) => string | undefined;
  /** The `resource` of the authorization request and token request: the typed URL, the PRM's, or none. */
  resource: 'typed' | 'prm' | 'none';
  /**
   * How the client checks the PRM's `resource` against the typed URL before it goes on:
   * VS Code wants them equal (`fetchResourceMetadata`), the TypeScript SDK wants the same
   * origin and a path prefix (`checkResourceAllowed`), hosted connectors do not check.
   */
  prmCheck: 'equal' | 'sdk' | 'none';
  /**
   * A known reason this client cannot connect yet, and the refusal that shows it: the test
   * expects exactly that refusal, and fails once the client connects (then drop the gap).
   */
  gap?: { reason: string; refusal: RegExp };
}

const CODE_GRANTS = ['authorization_code', 'refresh_token'];
const prmScopes = (d: Discovery) => d.prm.scopes_supported?.join(' ');
/** The SDK (≥ 1.2x) adds `offline_access` when the authorization server advertises it. */
const sdkScopes = (d: Discovery) => {
  const scopes = [...(d.prm.scopes_supported ?? [])];
  if (d.as.scopes_supported?.includes('offline_access') && !scopes.includes('offline_access')) scopes.push('offline_access');
  return scopes.join(' ') || undefined;
};

const CLAUDE_CALLBACKS = ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'];
const CURSOR_URIS = [
  'cursor://anysphere.cursor-mcp/oauth/callback',
  'https://www.cursor.com/agents/mcp/oauth/callback',
  'http://localhost:8787/callback',
];
const VSCODE_URIS = ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'];
const INSPECTOR = 'http://localhost:6274/oauth/callback';
/** VS Code asks for the PRM's scopes and `resource`, which must equal the typed URL, whether it registers or uses its document. */
const VSCODE_FLOW = { redirectUri: 'https://vscode.dev/redirect', scope: prmScopes, resource: 'prm', prmCheck: 'equal' } as const;

const INSPECTOR_PROFILE: ClientProfile = {
  // modelcontextprotocol/inspector client/src/lib/auth.ts: clientMetadata verbatim, both
  // callbacks; scope from the PRM (discoverScopes); the SDK's auth() does the rest.
  name: 'MCP Inspector',
  host: 'localhost',
  registration: {
    kind: 'dcr',
    body: (d) => ({
      redirect_uris: [INSPECTOR, `${INSPECTOR}/debug`],
      token_endpoint_auth_method: 'none',
      grant_types: CODE_GRANTS,
      response_types: ['code'],
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
      scope: prmScopes(d) ?? '',
    }),
  },
  redirectUri: INSPECTOR,
  scope: prmScopes,
  resource: 'prm',
  prmCheck: 'sdk',
};

const BASE: ClientProfile[] = [
  {
    // Claude web and desktop register from Anthropic's backend (python-httpx), asking for
    // client_secret_post (anthropics/claude-ai-mcp#1043), with both callbacks
    // (anthropics/claude-code#58054), and authorize with scope=claudeai (anthropics/claude-ai-mcp#124).
    name: 'Claude web/desktop (DCR)',
    host: 'localhost',
    registration: {
      kind: 'dcr',
      body: () => ({
        client_name: 'claudeai',
        redirect_uris: CLAUDE_CALLBACKS,
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'claudeai',
      }),
    },
    redirectUri: CLAUDE_CALLBACKS[0],
    scope: () => 'claudeai',
    resource: 'typed',
    prmCheck: 'none',
  },
  {
    // Claude's published metadata document, https://claude.ai/oauth/mcp-oauth-client-metadata
    // (as fetched, quoted in a CIMD test suite found by the code search).
    name: 'Claude web/desktop (CIMD)',
    host: 'localhost',
    registration: {
      kind: 'cimd',
      path: '/oauth/mcp-oauth-client-metadata',
      document: (id) => ({
        client_id: id,
        client_name: 'Claude',
        client_uri: 'https://claude.ai',
        redirect_uris: [CLAUDE_CALLBACKS[0]],
        grant_types: [...CODE_GRANTS, 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    },
    redirectUri: CLAUDE_CALLBACKS[0],
    scope: () => 'claudeai',
    resource: 'typed',
    prmCheck: 'none',
  },
  {
    // Claude Code is the TypeScript SDK's auth(): a random loopback port with /callback
    // (`--callback-port`, code.claude.com/docs/en/mcp), public client, PRM scopes.
    name: 'Claude Code (DCR)',
    host: 'localhost',
    registration: {
      kind: 'dcr',
      body: (d) => ({
        client_name: 'Claude Code (quire)',
        redirect_uris: ['http://localhost:54212/callback'],
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: sdkScopes(d),
      }),
    },
    redirectUri: 'http://localhost:54212/callback',
    scope: sdkScopes,
    resource: 'prm',
    prmCheck: 'sdk',
  },
  {
    // Claude Code's document https://claude.ai/oauth/claude-code-client-metadata lists loopback
    // URIs without a port, and the request carries one (anthropics/claude-code#60940).
    name: 'Claude Code (CIMD)',
    host: 'localhost',
    registration: {
      kind: 'cimd',
      path: '/oauth/claude-code-client-metadata',
      document: (id) => ({
        client_id: id,
        client_name: 'Claude Code',
        redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    },
    redirectUri: 'http://localhost:54213/callback',
    scope: sdkScopes,
    resource: 'prm',
    prmCheck: 'sdk',
  },
  {
    // ChatGPT developer-mode connectors: the per-connector callback
    // https://chatgpt.com/connector/oauth/<id> (makeplane/plane-mcp-server#165, BasedHardware/omi#8824)
    // beside the legacy connector_platform_oauth_redirect. Body fields beyond the name and
    // callbacks are unverified (its own document, chatgpt.com/oauth/client.json, asks for
    // private_key_jwt and also lists `none`).
    name: 'ChatGPT (DCR)',
    host: '127.0.0.1',
    registration: {
      kind: 'dcr',
      body: () => ({
        client_name: 'ChatGPT',
        redirect_uris: ['https://chatgpt.com/connector/oauth/c0nnect0r1d', 'https://chatgpt.com/connector_platform_oauth_redirect'],
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    },
    redirectUri: 'https://chatgpt.com/connector/oauth/c0nnect0r1d',
    scope: prmScopes,
    resource: 'typed',
    prmCheck: 'none',
  },
  {
    // ChatGPT's published document https://chatgpt.com/oauth/client.json, as fetched (quoted in
    // a CIMD test suite found by the code search): private_key_jwt, with `none` also listed, so
    // the server takes it as the public client its metadata asks for.
    // Unverified: that ChatGPT picks it whenever a server advertises metadata documents.
    name: 'ChatGPT (CIMD)',
    host: '127.0.0.1',
    registration: {
      kind: 'cimd',
      path: '/oauth/client.json',
      document: (id) => ({
        client_id: id,
        client_uri: 'https://chatgpt.com/',
        redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        client_name: 'ChatGPT',
        logo_uri: 'https://persistent.oaistatic.com/sonic/misc/openai-logo.png',
        token_endpoint_auth_signing_alg: 'RS256',
        jwks_uri: 'https://chatgpt.com/oauth/jwks.json',
      }),
    },
    redirectUri: 'https://chatgpt.com/connector_platform_oauth_redirect',
    scope: prmScopes,
    resource: 'typed',
    prmCheck: 'none',
  },
  {
    // Cursor registers three URIs in one request (erp-mafia/accounted#2225, koala73/worldmonitor#8305)
    // and comes back through its private-use scheme (makeplane/plane-mcp-server#159, cursor.com/docs/mcp).
    name: 'Cursor',
    host: 'localhost',
    registration: {
      kind: 'dcr',
      body: (d) => ({
        client_name: 'Cursor',
        redirect_uris: CURSOR_URIS,
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: prmScopes(d),
      }),
    },
    redirectUri: CURSOR_URIS[0],
    scope: prmScopes,
    resource: 'prm',
    prmCheck: 'sdk',
  },
  {
    // microsoft/vscode src/vs/base/common/oauth.ts fetchDynamicRegistration (body verbatim) and
    // extHostAuthentication.ts (redirect https://vscode.dev/redirect, `resource` = the PRM's,
    // PRM resource must equal the typed URL).
    name: 'VS Code (DCR)',
    host: 'localhost',
    registration: {
      kind: 'dcr',
      body: (d) => ({
        client_name: 'Visual Studio Code',
        client_uri: 'https://code.visualstudio.com',
        grant_types: d.as.grant_types_supported
          ? d.as.grant_types_supported.filter((g) => [...CODE_GRANTS, 'urn:ietf:params:oauth:grant-type:device_code'].includes(g))
          : [...CODE_GRANTS, 'urn:ietf:params:oauth:grant-type:device_code'],
        response_types: ['code'],
        redirect_uris: VSCODE_URIS,
        scope: prmScopes(d),
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }),
    },
    ...VSCODE_FLOW,
  },
  {
    // VS Code uses https://vscode.dev/oauth/client-metadata.json when the server advertises
    // CIMD (microsoft/vscode#271403); the document's fields are assumed to match its DCR body.
    name: 'VS Code (CIMD)',
    host: 'localhost',
    registration: {
      kind: 'cimd',
      path: '/oauth/client-metadata.json',
      document: (id) => ({
        client_id: id,
        client_name: 'Visual Studio Code',
        client_uri: 'https://code.visualstudio.com',
        redirect_uris: VSCODE_URIS,
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }),
    },
    ...VSCODE_FLOW,
  },
  {
    // Unverified: no public source shows Windsurf's MCP OAuth registration. Windsurf is a VS Code
    // fork whose app scheme is windsurf://codeium.windsurf (its own sign-in redirect); modelled
    // as a native app coming back through that scheme, with a loopback fallback.
    name: 'Windsurf',
    host: 'localhost',
    registration: {
      kind: 'dcr',
      body: (d) => ({
        client_name: 'Windsurf',
        redirect_uris: ['windsurf://codeium.windsurf/mcp/oauth/callback', 'http://127.0.0.1:33419/callback'],
        grant_types: CODE_GRANTS,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: prmScopes(d),
      }),
    },
    redirectUri: 'windsurf://codeium.windsurf/mcp/oauth/callback',
    scope: prmScopes,
    resource: 'prm',
    prmCheck: 'sdk',
  },
  INSPECTOR_PROFILE,
];

const base = (name: string) => BASE.find((p) => p.name === name)!;

/** Every client, and the same clients coming back through another callback they registered. */
export const PROFILES: ClientProfile[] = [
  ...BASE,
  { ...base('Claude web/desktop (DCR)'), name: 'Claude web/desktop (DCR, claude.com)', redirectUri: CLAUDE_CALLBACKS[1] },
  {
    ...base('ChatGPT (DCR)'),
    name: 'ChatGPT (DCR, legacy callback)',
    redirectUri: 'https://chatgpt.com/connector_platform_oauth_redirect',
  },
  // VS Code's loopback server, when the vscode.dev page cannot hand the code to the app.
  { ...base('VS Code (DCR)'), name: 'VS Code (DCR, loopback)', redirectUri: 'http://127.0.0.1:33418/' },
  // The Inspector's guided "Auth Settings" flow comes back on its debug callback.
  { ...INSPECTOR_PROFILE, name: 'MCP Inspector (guided auth)', redirectUri: `${INSPECTOR}/debug` },
];
