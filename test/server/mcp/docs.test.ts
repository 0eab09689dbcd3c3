import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { catalog } from '../../../server/ops/catalog.js';
import { toolTable } from './tool-table.js';

describe('docs/mcp.md', () => {
  it("lists exactly the catalog's tools with their scopes (on failure, paste the expected table)", () => {
    const doc = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
    const section = /<!-- tools:start -->\n([\s\S]*?)\n<!-- tools:end -->/.exec(doc)?.[1];
    expect(section).to.equal(toolTable(catalog));
  });
});
