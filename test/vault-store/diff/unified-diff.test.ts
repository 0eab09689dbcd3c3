import { expect } from 'chai';
import { unifiedDiff } from '../../../vault-store/diff/unified-diff.js';

describe('unifiedDiff (the diff library)', () => {
  it('writes a diff -u style patch with 3 lines of context and /dev/null for a missing side', () => {
    expect(unifiedDiff('n.md', 'a\nb\nc\n', 'a\nB\nc\n')).to.equal('--- a/n.md\n+++ b/n.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
    expect(unifiedDiff('n.md', null, 'x\n')).to.equal('--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,1 @@\n+x\n');
    expect(unifiedDiff('n.md', 'x\n', null)).to.equal('--- a/n.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n');
    expect(unifiedDiff('n.md', 'same\n', 'same\n')).to.equal('');
  });

  it('marks a side without final newline', () => {
    expect(unifiedDiff('n.md', 'a\nb\n', 'a\nb')).to.equal(
      '--- a/n.md\n+++ b/n.md\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n',
    );
  });
});

describe('unifiedDiff on versions too different to diff', () => {
  it('replaces every line, still a valid patch', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 3000 }, (_, i) => `new ${i}`).join('\n') + '\n';
    const patch = unifiedDiff('n.md', before, after).split('\n');
    expect(patch.slice(0, 4)).to.deep.equal(['--- a/n.md', '+++ b/n.md', '@@ -1,3000 +1,3000 @@', '-old 0']);
    expect(patch[3003]).to.equal('\\ No newline at end of file');
    expect(patch[3004]).to.equal('+new 0');
    expect(patch.length).to.equal(6005);
  });
});
