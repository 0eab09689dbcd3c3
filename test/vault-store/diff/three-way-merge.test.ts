import { expect } from 'chai';
import { mergeText } from '../../../vault-store/diff/three-way-merge.js';

const text = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('mergeText', () => {
  it('applies edits to separate lines of both sides', () => {
    const base = text(10);
    const merged = mergeText(base, base.replace('line 2\n', 'two\n'), base.replace('line 9\n', 'nine\n'));
    expect(merged).to.deep.equal({ clean: true, text: base.replace('line 2\n', 'two\n').replace('line 9\n', 'nine\n') });
  });

  it('marks overlapping edits with ours first, theirs second', () => {
    const base = text(5);
    const merged = mergeText(base, base.replace('line 3\n', 'ours\n'), base.replace('line 3\n', 'theirs\n'));
    expect(merged).to.deep.equal({
      clean: false,
      text: 'line 1\nline 2\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\nline 4\nline 5\n',
    });
  });

  it('treats edits of adjacent lines as a conflict, as git does, and the same edit on both sides as none', () => {
    const base = text(5);
    expect(mergeText(base, base.replace('line 2\n', 'two\n'), base.replace('line 3\n', 'three\n')).clean).to.equal(false);
    const same = base.replace('line 2\n', 'two\n');
    expect(mergeText(base, same, same)).to.deep.equal({ clean: true, text: same });
  });

  it('keeps CRLF line endings byte for byte and writes markers with them', () => {
    const base = 'a\r\nb\r\nc\r\nd\r\n';
    expect(mergeText(base, 'A\r\nb\r\nc\r\nd\r\n', 'a\r\nb\r\nc\r\nD\r\n')).to.deep.equal({ clean: true, text: 'A\r\nb\r\nc\r\nD\r\n' });
    expect(mergeText(base, 'a\r\nB\r\nc\r\nd\r\n', 'a\r\nX\r\nc\r\nd\r\n').text).to.equal(
      'a\r\n<<<<<<< ours\r\nB\r\n=======\r\nX\r\n>>>>>>> theirs\r\nc\r\nd\r\n',
    );
  });

  it('counts a changed line ending as a change of that line', () => {
    const base = 'a\nb\nc\n';
    expect(mergeText(base, 'a\r\nb\nc\n', 'a\nb\nC\n')).to.deep.equal({ clean: true, text: 'a\r\nb\nC\n' });
    expect(mergeText(base, 'a\r\nb\nc\n', 'A\nb\nc\n').clean).to.equal(false);
  });

  it('keeps or drops the final newline as the side that changed it says', () => {
    // Theirs appends after a last line without newline; ours edits the first line.
    expect(mergeText('a\nb\nc', 'A\nb\nc', 'a\nb\nc\nd')).to.deep.equal({ clean: true, text: 'A\nb\nc\nd' });
    // Ours drops the final newline far from theirs' edit.
    expect(mergeText(text(8), text(8).slice(0, -1), text(8).replace('line 1\n', 'one\n'))).to.deep.equal({
      clean: true,
      text: text(8).replace('line 1\n', 'one\n').slice(0, -1),
    });
    // Both add it: one edit, no conflict.
    expect(mergeText('a\nb', 'a\nb\n', 'a\nb\n')).to.deep.equal({ clean: true, text: 'a\nb\n' });
  });

  it('starts every marker on a line of its own when a side ends without a newline', () => {
    const merged = mergeText('a\nb\n', 'a\nours', 'a\ntheirs');
    expect(merged).to.deep.equal({ clean: false, text: 'a\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n' });
  });

  it('merges from and into empty texts, and lines that name Object.prototype members', () => {
    expect(mergeText('', '', 'new\n')).to.deep.equal({ clean: true, text: 'new\n' });
    expect(mergeText('x\n', '', 'x\n')).to.deep.equal({ clean: true, text: '' });
    const base = 'constructor\n__proto__\ntoString\nhasOwnProperty\n';
    expect(mergeText(base, `top\n${base}`, `${base}bottom\n`)).to.deep.equal({ clean: true, text: `top\n${base}bottom\n` });
  });
});
