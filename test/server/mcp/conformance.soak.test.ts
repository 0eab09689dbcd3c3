import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { childEnv } from '../../helpers/child-env.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const run = promisify(execFile);
const CLI = join(process.cwd(), 'node_modules/.bin/conformance');

/**
 * Server scenarios of @modelcontextprotocol/conformance 0.1.13 that call the reference
 * server's own fixtures (tools, resources and prompts named `test_*` / `test://…`): a real
 * server cannot pass them without shipping those fixtures. Read from the scenarios' source
 * (`node_modules/@modelcontextprotocol/conformance/dist/index.js`).
 */
const FIXTURE_DEPENDENT: Record<string, string> = {
  'completion-complete': 'completes an argument of the reference prompt `test_prompt_with_arguments`',
  'tools-call-simple-text': 'calls the reference tool `test_simple_text`',
  'tools-call-image': 'calls the reference tool `test_image_content`',
  'tools-call-audio': 'calls the reference tool `test_audio_content`',
  'tools-call-embedded-resource': 'calls the reference tool `test_embedded_resource`',
  'tools-call-mixed-content': 'calls the reference tool `test_multiple_content_types`',
  'tools-call-with-logging': 'calls the reference tool `test_tool_with_logging`',
  'tools-call-error': 'calls the reference tool `test_error_handling`',
  'tools-call-with-progress': 'calls the reference tool `test_tool_with_progress`',
  'tools-call-sampling': 'calls the reference tool `test_sampling`',
  'tools-call-elicitation': 'calls the reference tool `test_elicitation`',
  'json-schema-2020-12': 'lists the reference tool `json_schema_2020_12_tool` and checks its input schema',
  'elicitation-sep1034-defaults': 'calls the reference tool `test_elicitation_sep1034_defaults`',
  'elicitation-sep1330-enums': 'calls the reference tool `test_elicitation_sep1330_enums`',
  'server-sse-polling': 'calls the reference tool `test_reconnection` (a WARNING without it)',
  'resources-read-text': 'reads the reference resource `test://static-text`',
  'resources-read-binary': 'reads the reference resource `test://static-binary`',
  'resources-templates-read': 'reads `test://template/123/data` from the reference resource template',
  'resources-subscribe': 'subscribes to the reference resource `test://watched-resource`',
  'resources-unsubscribe': 'subscribes to and unsubscribes from the reference resource `test://watched-resource`',
  'prompts-get-simple': 'gets the reference prompt `test_simple_prompt`',
  'prompts-get-with-args': 'gets the reference prompt `test_prompt_with_arguments`',
  'prompts-get-embedded-resource': 'gets the reference prompt `test_prompt_with_embedded_resource`',
  'prompts-get-with-image': 'gets the reference prompt `test_prompt_with_image`',
};

/** The scenarios a server passes on its own: the protocol, not the fixtures. */
const REQUIRED = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'prompts-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** `<dir>/server-<scenario>-<ISO time with : and . as ->/checks.json`, one folder per scenario. */
function readResults(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const name of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(name)?.[1];
    if (scenario) results.set(scenario, JSON.parse(readFileSync(join(dir, name, 'checks.json'), 'utf8')));
  }
  return results;
}

/** Failed as the CLI's own baseline counts it: any FAILURE or WARNING check. */
function problems(checks: Check[]): string[] {
  return checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`);
}

describe('MCP conformance suite (@modelcontextprotocol/conformance, server scenarios)', function () {
  this.timeout(180_000);
  let server: TestServer;
  const out = tempDir('quire-conformance-');
  let results: Map<string, Check[]>;

  before(async () => {
    server = await startTestServer();
    // The CLI's client cannot set headers, so the key goes in the URL as `?token=`.
    const key = await server.key('ann', 'write');
    await run(CLI, ['server', '--url', `${server.url}/mcp?token=${key}`, '--suite', 'all', '-o', out.path], {
      env: childEnv(),
      maxBuffer: 16 << 20,
    }).catch((error: { code?: number }) => {
      if (typeof error.code !== 'number') throw error; // exit 1 only says some scenario failed
    });
    results = readResults(out.path);
  });
  after(async () => {
    await server.stop();
    out.cleanup();
  });

  it('runs every server scenario of the suite, each either required or excluded with a reason', async () => {
    const { stdout } = await run(CLI, ['list', '--server'], { env: childEnv() });
    const listed = [...stdout.matchAll(/^ {2}- (\S+)$/gm)].map((m) => m[1]);
    expect([...REQUIRED, ...Object.keys(FIXTURE_DEPENDENT)].sort()).to.deep.equal([...listed].sort());
    expect([...results.keys()].sort()).to.deep.equal([...listed].sort());
  });

  for (const scenario of REQUIRED) {
    it(`passes ${scenario}`, () => {
      expect(problems(results.get(scenario) ?? [{ id: scenario, status: 'FAILURE', errorMessage: 'no result' }])).to.deep.equal([]);
    });
  }
});
