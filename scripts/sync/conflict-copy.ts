const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Bytes as text, or undefined when they are not UTF-8 (binary files are never merged). */
export function asText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** "2026-11-26 1503" in local time: when a person looks at the folder, their clock is the one they read. */
function stamp(now: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())} ${two(now.getHours())}${two(now.getMinutes())}`;
}

/** A device name as a file name allows it (no separators, nothing Windows refuses). */
function safeDevice(device: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  return device.replace(/[/\\<>:"|?*\u0000-\u001f()]/g, '-').trim() || 'device';
}

/**
 * Where the local side of a conflict on `path` goes: `name (conflict <device> <YYYY-MM-DD
 * HHmm>).ext`, with " 2", " 3"… when taken. A copy already made of the same local version
 * (same hash, any time; a run killed after writing it) is reused, so a re-run never makes a
 * second one.
 */
export function conflictCopyPath(
  path: string,
  localHash: string,
  device: string,
  now: Date,
  local: ReadonlyMap<string, { hash: string }>,
  taken: (path: string) => boolean,
): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  const cut = dot > slash + 1 ? dot : path.length;
  const stem = path.slice(0, cut);
  const ext = path.slice(cut);
  const prefix = `${stem} (conflict `;
  for (const [other, file] of local) {
    if (file.hash === localHash && other.startsWith(prefix) && other.endsWith(`)${ext}`)) return other;
  }
  const label = `${prefix}${safeDevice(device)} ${stamp(now)}`;
  for (let n = 1; ; n++) {
    const candidate = `${label}${n === 1 ? '' : ` ${n}`})${ext}`;
    if (!local.has(candidate) && !taken(candidate)) return candidate;
  }
}
