import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('logging goes through the logger', () => {
  it('server/ and vault-store/ never write to the console (only the CLI in scripts/ does)', () => {
    const offenders: string[] = [];
    for (const dir of ['server', 'vault-store']) {
      for (const file of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
        if (!file.endsWith('.ts')) continue;
        readFileSync(join(ROOT, dir, file), 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/\bconsole\.\w+\(/.test(line)) offenders.push(`${dir}/${file}:${i + 1}`);
          });
      }
    }
    expect(offenders).to.deep.equal([]);
  });
});
