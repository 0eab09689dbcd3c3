import { execFileSync } from 'node:child_process';

export interface GitObject {
  type: string;
  content: Buffer;
}

/**
 * Objects as system git reads them, in one `git cat-file --batch` run: forking a test process
 * grown to a few hundred MB costs ~20 ms, more than git itself, so an oracle asked for many
 * objects asks once. Throws on an object git does not have.
 */
export function gitObjects(dir: string, oids: string[]): Map<string, GitObject> {
  const out = execFileSync('git', ['cat-file', '--batch'], { cwd: dir, input: oids.map((oid) => `${oid}\n`).join(''), maxBuffer: 1 << 30 });
  const found = new Map<string, GitObject>();
  let at = 0;
  for (const oid of oids) {
    const eol = out.indexOf(10, at);
    const [name, type, size] = out.toString('utf8', at, eol).split(' ');
    if (type === 'missing' || size === undefined) throw new Error(`git has no object ${name}`);
    const start = eol + 1;
    found.set(oid, { type, content: out.subarray(start, start + Number(size)) });
    at = start + Number(size) + 1;
  }
  return found;
}
