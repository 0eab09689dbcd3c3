/** What a sync tells the person running it. */
export interface Reporter {
  /** A phase with a known amount of work begins (downloads, uploads). */
  begin(phase: string, files: number): void;
  /** Some of it is done. */
  advance(files: number, bytes: number): void;
  /** One line worth keeping: a conflict, a refused path, a retry, the summary. */
  line(text: string): void;
}

const PLAIN_EVERY = 1000;

/**
 * On a terminal, one status line rewritten in place (files, bytes, rate, ETA); otherwise
 * plain lines: each phase, every 1,000 files, and the lines worth keeping.
 */
export function consoleReporter(out: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): Reporter {
  let phase = '';
  let total = 0;
  let done = 0;
  let bytes = 0;
  let started = 0;
  let drawn = false;
  const tty = out.isTTY === true;
  const clear = () => {
    if (drawn) out.write('\r\x1b[K');
    drawn = false;
  };
  const draw = () => {
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? Math.ceil((total - done) / rate) : undefined;
    clear();
    out.write(`${phase} ${done}/${total} · ${mib(bytes)}${eta === undefined ? '' : ` · ETA ${eta} s`}`);
    drawn = true;
  };
  return {
    begin(name, files) {
      if (tty) clear();
      phase = name;
      total = files;
      done = 0;
      bytes = 0;
      started = now();
      if (!tty) out.write(`${name} ${files} file${files === 1 ? '' : 's'}\n`);
    },
    advance(files, size) {
      const before = done;
      done += files;
      bytes += size;
      if (tty) draw();
      else if (Math.floor(done / PLAIN_EVERY) > Math.floor(before / PLAIN_EVERY)) out.write(`${phase} ${done}/${total} (${mib(bytes)})\n`);
    },
    line(text) {
      if (tty) clear();
      out.write(`${text}\n`);
    },
  };
}

function mib(bytes: number): string {
  return bytes < 1 << 20 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}

/** A reporter that keeps quiet (benchmarks, embedding). */
export const silentReporter: Reporter = { begin() {}, advance() {}, line() {} };
