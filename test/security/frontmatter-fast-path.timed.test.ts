import { expect } from 'chai';
import { MAX_FRONTMATTER_BYTES, readFrontmatter } from '../../vault-store/markdown/frontmatter.js';
import { composeYamlData } from '../../vault-store/markdown/yaml-data.js';
import { simpleYamlData } from '../../vault-store/markdown/yaml-simple.js';
import { expectCpuMs } from '../helpers/cpu-time.js';

/** `head` then `unit` repeated to the front-matter cap, then `tail`. */
function block(head: string, unit: string, tail = ''): string {
  const room = MAX_FRONTMATTER_BYTES - head.length - tail.length;
  return head + unit.repeat(Math.floor(room / unit.length)) + tail;
}

/**
 * Front-matter shaped to go as far as it can through the fast path's regular expressions
 * (yaml-simple.ts) before it gives up or reads it all: a key of thousands of spaced words,
 * a line of them with no colon (the key pattern's words backtrack), a value of them, list
 * items by the thousand. Each is read in a few milliseconds, to what the library reads.
 */
describe('security: front-matter the fast path reads to its cap', () => {
  const BLOCKS: Record<string, string> = {
    'a key of spaced words': block('', 'a ', 'a: v\n'),
    'spaced words and no colon': block('', 'a ', 'a\n'),
    'a plain value of spaced words': block('k: ', 'a ', 'a\n'),
    'a value of colons without spaces': block('k: ', 'a:', 'a\n'),
    'block list items': block('k:\n', '  - a\n'),
    'block list items, the last out of line': block('k:\n', '  - a\n', ' - b\n'),
    'a flow list': block('k: [', 'a, ', 'a]\n'),
    'a flow list never closed': block('k: [', 'a, ', 'a\n'),
  };

  before(() => {
    for (const yaml of Object.values(BLOCKS)) readFrontmatter(`---\n${yaml}---\n`); // compiled, as on a running server
  });

  for (const [name, yaml] of Object.entries(BLOCKS)) {
    it(`reads ${name} (${yaml.length} bytes) as the library does, in 50 ms or less`, () => {
      expect(yaml.length).to.be.within(MAX_FRONTMATTER_BYTES - 10, MAX_FRONTMATTER_BYTES);
      const page = `---\n${yaml}---\nbody\n`;
      expectCpuMs(() => simpleYamlData(yaml), 50, 'fast path');
      expectCpuMs(() => readFrontmatter(page), 50, 'read');
      const { data, error } = readFrontmatter(page);
      expect(error ? { error: error.replace(/^front-matter /, '') } : { data }).to.deep.equal(composeYamlData(yaml, 2));
    });
  }
});
