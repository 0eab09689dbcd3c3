import { killSavesAndCompare } from './kill-saver.js';

describe('knowledge index saves killed mid-way (soak)', () => {
  it('reopens from the last complete save and answers as a fresh rebuild, over many kills', async function () {
    this.timeout(600_000);
    await killSavesAndCompare(40, 1500);
  });
});
