import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs git as a person named "bench" would; async, so a server in this process can answer it. */
export function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@quire.invalid', ...args], { cwd }, (err, stdout, stderr) =>
      err ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
  });
}

/** Appends `word` to `count` pages of the vault folder `dir`, a different slice each round. */
export function editPages(dir: string, paths: readonly string[], count: number, round: number, word: string): void {
  for (let i = 0; i < count; i++) {
    const path = join(dir, paths[(round * count + i * 7) % paths.length]);
    writeFileSync(path, `${readFileSync(path, 'utf8')}\n${word}\n`);
  }
}
