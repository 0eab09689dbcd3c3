import { expect } from 'chai';
import { readFrontmatter } from '../../vault-store/markdown/frontmatter.js';
import { composeYamlData } from '../../vault-store/markdown/yaml-data.js';
import { simpleYamlData } from '../../vault-store/markdown/yaml-simple.js';

/**
 * Front-matter keys that name Object.prototype's members, in the simple shape that is read
 * without the yaml library's parser (yaml-simple.ts): each page reads to the data the library
 * gives, as own properties of a plain object, and nothing reaches Object.prototype.
 */
describe('security: front-matter keys named like prototype members', () => {
  const blocks = [
    '__proto__: polluted\n',
    '__proto__:\n  - polluted\n',
    '__proto__: [polluted]\ntitle: T\n',
    'constructor: polluted\n',
    'toString: [polluted]\n',
    'hasOwnProperty: 1\nvalueOf:\n',
    'isPrototypeOf: "x"\n__defineGetter__: y\n',
  ];

  for (const yaml of blocks) {
    it(`reads ${JSON.stringify(yaml)} as the yaml library does, polluting nothing`, () => {
      const { data, error } = readFrontmatter(`---\n${yaml}---\nbody\n`);
      const library = composeYamlData(yaml, 2);
      expect(error ? { error: error.replace(/^front-matter /, '') } : { data }).to.deep.equal(library);
      // The fast path takes them all but `__proto__`, which it leaves to the library.
      expect(simpleYamlData(yaml) === undefined, 'left to the library').to.equal(yaml.includes('__proto__'));
      expect(Object.getPrototypeOf(data)).to.equal(Object.prototype);
      expect(({} as Record<string, unknown>).polluted, 'Object.prototype').to.equal(undefined);
      expect(Object.prototype.toString).to.be.a('function');
      expect(Object.keys(Object.prototype)).to.deep.equal([]);
    });
  }
});
