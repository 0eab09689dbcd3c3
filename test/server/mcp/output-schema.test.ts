import { expect } from 'chai';
import { Ajv, type ErrorObject } from 'ajv';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { catalog } from '../../../server/ops/catalog.js';
import { mcpOperations, resultSchema } from '../../../server/mcp/tools.js';
import { testAuthor } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from './mcp-client.js';
import { PARITY_CASES, SEED, type CaseContext } from './parity-cases.js';

const ajv = new Ajv({ allErrors: true, strict: false });
/** What `Client.callTool` validates structuredContent with once `listTools()` has run. */
const sdkValidator = new AjvJsonSchemaValidator();

/** Every violation with its place in the result, e.g. `/results/0: must NOT have additional properties (query)`. */
function violations(schema: Record<string, unknown>, data: unknown): string[] {
  const validate = ajv.compile(schema);
  if (validate(data)) return [];
  const detail = (e: ErrorObject) => {
    const params = e.params as Record<string, unknown>;
    const named = params.additionalProperty ?? params.missingProperty ?? params.allowedValues;
    return named === undefined ? '' : ` (${JSON.stringify(named)})`;
  };
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}${detail(e)}`);
}

describe('MCP tool output schemas', () => {
  let server: TestServer;
  let client: Client;
  let tools: Tool[];

  before(async () => {
    server = await startTestServer();
    const vault = await server.services.vaults.get('ann');
    for (const [path, content] of Object.entries(SEED)) await vault.pages.write(testAuthor, { path, content });
    client = await mcpClient(server.url, { bearer: await server.key('ann', 'write') });
    // From here on client.callTool validates every structuredContent against outputSchema itself.
    tools = (await client.listTools()).tools;
  });
  after(async () => {
    await client.close();
    await server.stop();
  });

  it('gives every tool an object outputSchema, the operation result or the error body', () => {
    for (const op of mcpOperations(catalog)) {
      const tool = tools.find((t) => t.name === op.name)!;
      expect(tool.outputSchema?.type, op.name).to.equal('object');
      const { $schema: _, ...result } = resultSchema(op);
      expect((tool.outputSchema as { anyOf: unknown[] }).anyOf[0], op.name).to.deep.equal(result);
    }
  });

  it('returns structuredContent that validates against the schema, for every tool', async () => {
    const ctx: CaseContext = {
      hashOf: async (p) => (await (await server.services.vaults.get('ann')).pages.read(p)).hash,
      run: async (name, input) => (await call(client, name, input)).structuredContent as Record<string, unknown>,
    };
    const ops = mcpOperations(catalog);
    expect(
      ops.map((op) => op.name).filter((name) => !PARITY_CASES[name]),
      'tools without a case',
    ).to.deep.equal([]);
    const failures: string[] = [];
    // Parity order: writes see the state the earlier cases left.
    for (const name of Object.keys(PARITY_CASES)) {
      const op = ops.find((o) => o.name === name)!;
      // Below callTool's own check, so that every tool is checked and a failure names the field.
      const params = { name, arguments: await PARITY_CASES[name].good(ctx) };
      const result: CallToolResult = await client.request({ method: 'tools/call', params }, CallToolResultSchema);
      expect(result.isError, `${name}: ${JSON.stringify(result.structuredContent)}`).to.not.equal(true);
      const sdk = sdkValidator.getValidator(tools.find((t) => t.name === name)!.outputSchema!)(result.structuredContent);
      // The SDK's message does not name an unexpected field; the result branch alone does.
      if (!sdk.valid)
        failures.push(`${name}: ${sdk.errorMessage}`, ...violations(resultSchema(op), result.structuredContent).map((v) => `${name} ${v}`));
    }
    expect(failures).to.deep.equal([]);
  });

  it("passes the SDK client's own validation in callTool", async () => {
    const read = await call(client, 'read_page', { path: 'notes/b.md' });
    expect(read.structuredContent).to.include({ path: 'notes/b.md' });
  });

  it('keeps failures readable: an isError result carries the error body, which the schema admits', async () => {
    const missing = await call(client, 'read_page', { path: 'notes/none.md' });
    expect(missing.isError).to.equal(true);
    expect(missing.structuredContent).to.include({ code: 'NOT_FOUND' });
    const schema = tools.find((t) => t.name === 'read_page')!.outputSchema as Record<string, unknown>;
    expect(violations(schema, missing.structuredContent)).to.deep.equal([]);
    const readPage = mcpOperations(catalog).find((o) => o.name === 'read_page')!;
    expect(violations(resultSchema(readPage), missing.structuredContent).length, 'the error matched the result branch').to.be.greaterThan(
      0,
    );
  });
});
