import type { Writable } from 'node:stream';
import type { ZipEntry } from './zip-entry.js';

const UTF8_NAMES = 0x0800;
const MADE_BY_UNIX = (3 << 8) | 45;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;

/**
 * Writes a zip archive to a stream, one entry at a time, sizes and CRC known up front (so
 * no data descriptors). Only the central directory — ~60 bytes per entry — is held until
 * the end. Zip64 records appear only when the archive needs them (more than 65,535
 * entries or offsets past 4 GiB), as zip tools expect.
 */
export class ZipWriter {
  private offset = 0;
  private readonly central: Buffer[] = [];
  private count = 0;
  private readonly time: number;
  private readonly date: number;

  /** Every entry gets `mtime` (the commit's time), as `git archive` does. */
  constructor(
    private readonly out: Writable,
    mtime: Date,
  ) {
    ({ time: this.time, date: this.date } = dosDateTime(mtime));
  }

  /** Writes one entry; false means the stream wants a 'drain' before more. */
  write(entry: ZipEntry): boolean {
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt16LE(this.time, 10);
    local.writeUInt16LE(this.date, 12);
    local.writeUInt32LE(entry.crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(entry.name.length, 26);
    this.central.push(this.centralRecord(entry));
    this.count += 1;
    this.out.write(local);
    this.out.write(entry.name);
    this.offset += local.length + entry.name.length + entry.data.length;
    return this.out.write(entry.data);
  }

  /** Writes the central directory and the end records; the caller ends the stream. */
  finish(): void {
    const start = this.offset;
    for (const record of this.central) this.out.write(record);
    const size = this.central.reduce((n, r) => n + r.length, 0);
    const zip64 = this.count > MAX16 || start + size > MAX32;
    if (zip64) {
      const end64 = Buffer.alloc(56 + 20);
      end64.writeUInt32LE(0x06064b50, 0);
      end64.writeBigUInt64LE(44n, 4);
      end64.writeUInt16LE(MADE_BY_UNIX, 12);
      end64.writeUInt16LE(45, 14);
      end64.writeBigUInt64LE(BigInt(this.count), 24);
      end64.writeBigUInt64LE(BigInt(this.count), 32);
      end64.writeBigUInt64LE(BigInt(size), 40);
      end64.writeBigUInt64LE(BigInt(start), 48);
      end64.writeUInt32LE(0x07064b50, 56);
      end64.writeBigUInt64LE(BigInt(start + size), 64);
      end64.writeUInt32LE(1, 72);
      this.out.write(end64);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(this.count, MAX16), 8);
    end.writeUInt16LE(Math.min(this.count, MAX16), 10);
    end.writeUInt32LE(zip64 ? MAX32 : size, 12);
    end.writeUInt32LE(zip64 ? MAX32 : start, 16);
    this.out.write(end);
  }

  private centralRecord(entry: ZipEntry): Buffer {
    const far = this.offset > MAX32;
    const record = Buffer.alloc(46 + entry.name.length + (far ? 12 : 0));
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(MADE_BY_UNIX, 4);
    record.writeUInt16LE(far ? 45 : 20, 6);
    record.writeUInt16LE(UTF8_NAMES, 8);
    record.writeUInt16LE(entry.method, 10);
    record.writeUInt16LE(this.time, 12);
    record.writeUInt16LE(this.date, 14);
    record.writeUInt32LE(entry.crc, 16);
    record.writeUInt32LE(entry.data.length, 20);
    record.writeUInt32LE(entry.size, 24);
    record.writeUInt16LE(entry.name.length, 28);
    record.writeUInt16LE(far ? 12 : 0, 30);
    record.writeUInt32LE((entry.mode << 16) >>> 0, 38);
    record.writeUInt32LE(far ? MAX32 : this.offset, 42);
    entry.name.copy(record, 46);
    if (far) {
      // Zip64 extended information: only the local header offset overflows.
      record.writeUInt16LE(0x0001, 46 + entry.name.length);
      record.writeUInt16LE(8, 48 + entry.name.length);
      record.writeBigUInt64LE(BigInt(this.offset), 50 + entry.name.length);
    }
    return record;
  }
}

/** MS-DOS date and time (local time, 2-second resolution), as zip stores them. */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, Math.min(2107, d.getFullYear()));
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}
