// Whole files read by the native reader (xhd_read_file, pieces on every core): the same bytes as Node's
// own read, across piece boundaries and at odd sizes, still placed so that a PLY body starts 8-byte aligned.
// readInputFile takes a file from its 64 KiB probe (sizes 0 to 4095 below), reads one of up to 4 MiB with one
// call (4 MiB - 1) and a larger one natively (9 MiB + 3): every path gives the same bytes.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { readInputFile } from '../src/io/input-file.js';
import { nativeReader } from '../src/io/native-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'xhd-native-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the native whole-file read gives the bytes Node reads, across pieces, PLY bodies 8-byte aligned', () => {
  assert.ok(nativeReader(), 'build/libxhd_cpu.so should load');
  let state = 7;
  for (const size of [0, 1, 4095, (4 << 20) - 1, (9 << 20) + 3]) {
    const header = Buffer.from('ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n');
    const content = Buffer.alloc(Math.max(size, 0));
    for (let i = 0; i < content.length; i++) content[i] = (state = (state * 1664525 + 1013904223) >>> 0) >>> 24;
    if (size > header.length) header.copy(content);
    const path = join(dir, `f${size}`);
    writeFileSync(path, content);
    const bytes = readInputFile(path, 'a test file');
    assert.ok(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(readFileSync(path)), `size ${size}`);
    if (size > header.length) assert.equal((bytes.byteOffset + header.length) % 8, 0, `size ${size}: body alignment`);
  }
});

test('the native read of more than the file holds (a file that shrank) gives the bytes there were; a missing file its errno', () => {
  const path = join(dir, 'short');
  writeFileSync(path, Buffer.alloc((5 << 20) + 11, 7));
  const into = new Uint8Array((9 << 20) + 5);
  const result = {} as { bytes: number | bigint; error_number: number };
  assert.equal(nativeReader()!.readFile(path, 0, into.length, 0, into, result), 0);
  assert.deepEqual([Number(result.bytes), result.error_number], [(5 << 20) + 11, 0]);
  assert.equal(into[(5 << 20) + 10], 7);
  assert.equal(nativeReader()!.readFile(join(dir, 'absent'), 0, 10, 0, into, result), 0);
  assert.deepEqual([Number(result.bytes), result.error_number], [0, 2]); // ENOENT
});
