import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { guardHealthz } from './healthz-guard.js';

// Timed: it asserts a quiet server answers within 200 ms, which CPU-bound files running beside it can break.
describe('security: the healthz guard', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('sees an event loop blocked between two probes, and reports a quiet one as quick', async () => {
    const blocked = await guardHealthz(server.url, async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const until = performance.now() + 300;
      while (performance.now() < until); // what a quadratic regex does to the server
      await new Promise((resolve) => setTimeout(resolve, 30));
      return 'done';
    });
    expect(blocked.result).to.equal('done');
    expect(blocked.maxLatencyMs).to.be.at.least(250);
    const quiet = await guardHealthz(server.url, () => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(quiet.probes).to.be.at.least(3);
    expect(quiet.maxLatencyMs).to.be.below(200);
  });

  it('throws what the attack threw', async () => {
    const failing = guardHealthz(server.url, () => Promise.reject(new Error('refused')));
    await failing.then(
      () => expect.fail('no error'),
      (err: Error) => expect(err.message).to.equal('refused'),
    );
  });
});
