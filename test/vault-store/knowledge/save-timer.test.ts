import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { SaveTimer } from '../../../vault-store/knowledge/save-timer.js';
import { until } from '../../helpers/until.js';

/** A SaveTimer whose saves take `saveMs` each; `starts` records when each began. */
function timerWithSaves(delayMs: number, saveMs: number) {
  const starts: number[] = [];
  const timer: SaveTimer = new SaveTimer(delayMs, () => {
    starts.push(Date.now());
    void timer.timed(() => sleep(saveMs));
  });
  return { timer, starts };
}

describe('SaveTimer', () => {
  let timer: SaveTimer | undefined;
  afterEach(() => timer?.stop());

  it('saves within the delay of the first unsaved commit, then waits 20 times what the last save took', async () => {
    const made = timerWithSaves(100, 30);
    timer = made.timer;
    const armed = Date.now();
    timer.arm();
    // Armed again by later commits: not pushed back.
    await sleep(10);
    timer.arm();
    await until('the first save', 2000, () => made.starts.length === 1);
    expect(made.starts[0] - armed).to.be.at.least(99);
    await sleep(35);
    const ended = Date.now();
    timer.arm();
    await until('the second save', 5000, () => made.starts.length === 2);
    // 20 × 30 ms after the first save ended, not the 100 ms delay.
    expect(made.starts[1] - ended).to.be.at.least(500);
  });

  it('spaces saves by at most ten delays, however long the last one took', async () => {
    const made = timerWithSaves(20, 300);
    timer = made.timer;
    timer.arm();
    await until('the first save', 2000, () => made.starts.length === 1);
    await sleep(320);
    const ended = Date.now();
    timer.arm();
    await until('the second save', 5000, () => made.starts.length === 2);
    expect(made.starts[1] - ended).to.be.at.least(190);
    expect(made.starts[1] - ended, 'not 20 × 300 ms').to.be.below(3000);
  });

  it('never saves when switched off, nor after stop', async () => {
    const off = timerWithSaves(0, 0);
    timer = new SaveTimer(false, () => off.starts.push(Date.now()));
    timer.arm();
    const stopped = timerWithSaves(10, 0);
    stopped.timer.arm();
    stopped.timer.stop();
    await sleep(60);
    expect(off.starts).to.deep.equal([]);
    expect(stopped.starts).to.deep.equal([]);
  });
});
