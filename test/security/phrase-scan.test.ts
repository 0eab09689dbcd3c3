import { phraseTest } from '../../vault-store/knowledge/search/query.js';
import { MAX_TERM_LENGTH } from '../../vault-store/knowledge/search/tokenize.js';
import { expectCpuMs } from '../helpers/cpu-time.js';

const MIB = 1 << 20;
const fill = (unit: string) => Buffer.from(unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB)).toString();
const long = 'x'.repeat(MAX_TERM_LENGTH + 1);

/** Bodies built so that a phrase's expression starts a match almost everywhere and fails late. */
const HOSTILE: Record<string, string> = {
  'the first word, over and over': fill('a '),
  'the first word before overlong runs': fill(`a ${long} `),
  'overlong runs only': fill(`${long} `),
  'one overlong run': 'a ' + 'x'.repeat(MIB),
  'separators only': ' '.repeat(MIB),
  'the phrase but its last word': fill('a a a '),
};

describe('phrase checks are linear on 1 MiB hostile page bodies', () => {
  const tests = [phraseTest(['a', 'b']), phraseTest(['a', 'a', 'a', 'b']), phraseTest(['a', 'x'])];

  for (const [name, body] of Object.entries(HOSTILE)) {
    it(`checks "${name}" in 100 ms or less per phrase`, () => {
      for (const test of tests) test(body);
      for (const test of tests) expectCpuMs(() => test(body), 100);
    });
  }
});
