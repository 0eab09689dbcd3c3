import { snippet } from '../../vault-store/knowledge/search/snippet.js';
import { MAX_TERM_LENGTH } from '../../vault-store/knowledge/search/tokenize.js';
import { expectCpuMs } from '../helpers/cpu-time.js';

const MIB = 1 << 20;
const fill = (unit: string) => unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB);

/**
 * A snippet finds the query's words with one expression built from them (an alternation of
 * the terms between word boundaries). The most a query brings: many terms of the longest
 * length, sharing all but their last characters, so each alternative runs long before failing.
 */
const terms = new Set(Array.from({ length: 120 }, (_, i) => 'a'.repeat(MAX_TERM_LENGTH - 3) + String(i).padStart(3, '0')));
const [first] = terms;

const HOSTILE: Record<string, string> = {
  'words one character short of every term': fill(`${'a'.repeat(MAX_TERM_LENGTH - 1)} `),
  'a term everywhere': fill(`${first} `),
  'one-letter words': fill('a '),
  'one endless word': 'a'.repeat(MIB),
};

describe('snippets are linear on 1 MiB hostile page bodies with a query of 120 long terms', () => {
  for (const [name, body] of Object.entries(HOSTILE)) {
    it(`makes the snippet of "${name}" in 150 ms or less`, () => {
      snippet(body, terms);
      expectCpuMs(() => snippet(body, terms), 150);
    });
  }
});
