/** One step of an edit script: a line kept, removed from `a`, or added from `b`. */
export interface DiffOp {
  kind: 'keep' | 'del' | 'add';
  line: string;
}

/** Lines without their terminators; a final newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Myers' O(ND) shortest edit script between two line arrays. The common head and tail are
 * trimmed first, so a small edit to a long page costs little; memory is O(D²) for the
 * saved frontiers, which stays small for the few-hunk edits proposals carry.
 */
export function diffLines(a: readonly string[], b: readonly string[]): DiffOp[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const keep = (lines: readonly string[]) => lines.map((line): DiffOp => ({ kind: 'keep', line }));
  return [...keep(a.slice(0, head)), ...middle(x, y), ...keep(a.slice(a.length - tail))];
}

function middle(a: readonly string[], b: readonly string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  return backtrack(a, b, trace, offset);
}

function backtrack(a: readonly string[], b: readonly string[], trace: Int32Array[], offset: number): DiffOp[] {
  const ops: DiffOp[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: 'keep', line: a[x] });
    }
    if (x === prevX) ops.push({ kind: 'add', line: b[--y] });
    else ops.push({ kind: 'del', line: a[--x] });
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    ops.push({ kind: 'keep', line: a[x] });
  }
  return ops.reverse();
}
