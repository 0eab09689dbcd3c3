import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The SDK client compiles every tool's outputSchema with Ajv on each tools/list (~200 ms a
 * client): the clients of a test process share the compiled validators, as one host app
 * would (the 13 files that list tools, run serially: 14.5–15.8 → 12.7–13.9 s of CPU). Each
 * result is still checked against its tool's schema.
 */
const ajv = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();
const sharedValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) compiled.set(key, ajv.getValidator(schema));
    return compiled.get(key) as JsonSchemaValidator<T>;
  },
};

/** The SDK's client as the tests use it, sharing compiled output schemas (see above). */
export function testClient(name = 'quire-test'): Client {
  return new Client({ name, version: '1.0.0' }, { jsonSchemaValidator: sharedValidator });
}

/** The SDK's own client on /mcp, authenticated with a bearer header or a `?token=` URL. */
export async function mcpClient(baseUrl: string, auth: { bearer?: string; queryToken?: string }): Promise<Client> {
  const url = new URL(`${baseUrl}/mcp`);
  if (auth.queryToken) url.searchParams.set('token', auth.queryToken);
  const headers: Record<string, string> = auth.bearer ? { authorization: `Bearer ${auth.bearer}` } : {};
  const client = testClient();
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A raw JSON-RPC POST, for checks below the client (status codes, headers). */
export function rpc(baseUrl: string, body: unknown, headers: Record<string, string> = {}, path = '/mcp'): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

/** The JSON-RPC error a request fails with (a failure to fail is the test's failure). */
export async function rpcFailure(promise: Promise<unknown>): Promise<McpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the request should fail').to.be.instanceOf(McpError);
  return err as McpError;
}
