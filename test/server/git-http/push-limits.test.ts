import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Config } from '../../../server/config.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';
import { pushSetupPerTest, receivePackRequest } from './push-setup.js';

// 100 KiB for the personal plan (alice's), in the plan's own unit.
const LIMIT = 100 * 1024;
const smallPushes = (c: Config): Config => ({
  ...c,
  plans: { ...c.plans, personal: { ...c.plans.personal, push_mb: LIMIT / (1024 * 1024) } },
});

describe("git push over the plan's size limit: refused before git runs, spooled bodies always removed", function () {
  this.timeout(60_000);
  const p = pushSetupPerTest({}, smallPushes);
  /** Where push bodies wait for git: empty whenever no push is under way. */
  const spooled = () => readdirSync(join(p.server.dataDir, 'tmp'));

  it("refuses a push larger than the plan's limit (413 before git runs), ref and folder unchanged, nothing left on disk", async () => {
    const before = p.head();
    await p.commitFile('big.bin', randomBytes(200_000));
    const result = await p.push('HEAD:main');
    expect(result.status).to.not.equal(0);
    expect(result.stderr).to.match(/413/);
    expect(p.head()).to.equal(before);
    expect(existsSync(join(p.vaultDir, 'big.bin'))).to.equal(false);
    expect(spooled()).to.deep.equal([]);

    const res = await fetch(`${p.server.url}/vault.git/git-receive-pack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.key}` },
      body: randomBytes(LIMIT + 1),
    });
    expect(res.status).to.equal(413);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await res.text()).to.match(/larger than your plan's limit of 102400 bytes/);
    expect(spooled()).to.deep.equal([]);
    expect(p.head()).to.equal(before);
  });

  it('takes a push just under the limit, and a body of exactly the limit reaches git', async () => {
    await p.commitFile('almost.bin', randomBytes(95_000));
    const result = await p.push('HEAD:main');
    expect(result.status, result.stderr).to.equal(0);
    expect(p.head()).to.equal(gitIn(p.client, 'rev-parse', 'HEAD').trim());
    expect(statSync(join(p.vaultDir, 'almost.bin')).size).to.equal(95_000);
    expect(spooled()).to.deep.equal([]);

    const before = p.head();
    const body = receivePackRequest(before);
    const res = await fetch(`${p.server.url}/vault.git/git-receive-pack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.key}` },
      body: Buffer.concat([body, randomBytes(LIMIT - body.length)]),
    });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.match(/ng refs\/heads\/main/);
    expect(p.head()).to.equal(before);
    expect(spooled()).to.deep.equal([]);
  });

  for (const gzip of [false, true]) {
    it(`leaves no file behind and the ref unchanged when the client leaves mid-upload${gzip ? ' (gzip body)' : ''}`, async () => {
      const before = p.head();
      const whole = Buffer.concat([receivePackRequest(before), randomBytes(90_000)]);
      const sent = gzip ? gzipSync(whole) : whole;
      const { port } = new URL(p.server.url);
      const upload = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/vault.git/git-receive-pack',
        headers: {
          authorization: `Bearer ${p.key}`,
          'content-length': String(sent.length),
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        },
      });
      upload.on('error', () => undefined);
      upload.write(sent.subarray(0, sent.length / 2));
      // Mid-upload: the body is being written to its file.
      await until('the body to be spooled', 5_000, () =>
        spooled().some((folder) => existsSync(join(p.server.dataDir, 'tmp', folder, 'body'))),
      );
      upload.destroy();
      await until('the spooled body to be removed', 5_000, () => spooled().length === 0);
      expect(p.head()).to.equal(before);
      expect(gitIn(p.vaultDir, 'status', '--porcelain')).to.equal('');
      // The server goes on taking pushes.
      await p.commitFile('notes/after.md', 'after the abort');
      const result = await p.push('HEAD:main');
      expect(result.status, result.stderr).to.equal(0);
      expect(spooled()).to.deep.equal([]);
    });
  }
});
