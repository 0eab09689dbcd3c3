/** Character classes the scanner asks about per character, by code so no regex runs per character. */

/** What `\s` matches in a JavaScript regex. */
export function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const LETTER = /\p{L}/u;
const NUMBER = /\p{N}/u;

/**
 * End of the run of tag characters (letters, digits, `_`, `-`, `/`) starting at `from`, as a
 * negative number when the run holds no character but digits (not a tag: "#1").
 */
export function tagRunEnd(text: string, from: number): number {
  let end = from;
  let nonDigit = false;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    if (code < 128) {
      const letter = code | 0x20; // folds A-Z onto a-z and maps nothing else there
      if ((letter >= 97 && letter <= 122) || code === 95 || code === 45 || code === 47) nonDigit = true;
      else if (code < 48 || code > 57) break;
      end++;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(end)!);
    if (LETTER.test(char)) nonDigit = true;
    else if (!NUMBER.test(char)) break;
    end += char.length;
  }
  return nonDigit ? end : -end;
}
