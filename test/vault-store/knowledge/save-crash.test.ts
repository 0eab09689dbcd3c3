import { killSavesAndCompare } from './kill-saver.js';

describe('knowledge index saves killed mid-way', () => {
  it('reopens from the last complete save and answers as a fresh rebuild, after kill -9 at random moments', async function () {
    this.timeout(30_000);
    await killSavesAndCompare(3, 600);
  });
});
