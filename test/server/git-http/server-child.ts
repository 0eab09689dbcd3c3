import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cli } from '../../helpers/built-script.js';
import { childEnv } from '../../helpers/child-env.js';
import { until } from '../../helpers/until.js';

export interface ServerChild {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<unknown>;
}

/** Runs a `quire` CLI command on the data folder `data`; returns what it printed. */
export function quireIn(data: string, ...args: string[]): string {
  return execFileSync(process.execPath, cli(...args, '--data', data), { encoding: 'utf8', input: '', env: childEnv() });
}

/** `quire serve` as a real child process on a port the OS picks; resolves once it listens. */
export async function serveChild(data: string): Promise<ServerChild> {
  const child = spawn(process.execPath, cli('serve', '--data', data, '--port', '0', '--host', '127.0.0.1'), {
    env: childEnv({ QUIRE_LOG_LEVEL: 'warn', QUIRE_WATCH: 'true' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await Promise.race([
    until('the server to listen', 15_000, () => /quire serving \S+ at (http:\/\/\S+)/.exec(out)?.[1]),
    exited.then(() => {
      throw new Error(`quire serve exited before listening (code ${child.exitCode}, signal ${child.signalCode}):\n${out}`);
    }),
  ]);
  return { child, url, output: () => out, exited };
}
