/** Applies a git delta (pack-format.txt, "deltified representation") to its base. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  if (varint() !== base.length) throw new Error('delta does not apply to this base');
  const out = Buffer.allocUnsafe(varint());
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += delta[at++] * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) size += delta[at++] * 2 ** (8 * i);
      written += base.copy(out, written, offset, offset + (size || 0x10000));
    } else if (op > 0) {
      written += delta.copy(out, written, at, at + op);
      at += op;
    } else {
      throw new Error('invalid delta opcode 0');
    }
  }
  if (written !== out.length) throw new Error('delta produced the wrong size');
  return out;
}
