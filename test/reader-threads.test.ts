// --threads reaches the native readers. A read asked for one thread must start no thread: before, the
// readers and the mask's points took every core whatever --threads said, so the four one-thread shards of a
// batch on a 16-core host each spun up a pool of 16 (docs/benchmarks.md, "Sharded batch"). Each read runs
// in a fresh process, since the library's pool keeps the threads it starts, and the threads are counted
// from /proc/self/task. The same read with the default (every core) does start threads: the count can tell.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { nativeReader } from '../src/io/native-reader.js';
import { readerThreads } from '../src/io/reader-threads.js';
import { writeLaz } from '../src/io/laz-write.js';
import { lasBytes } from './las-writer.js';
import { writeNifti } from './nifti-writer.js';
import { rng } from './random-points.js';

const READ_MODULE = new URL('../src/io/read.js', import.meta.url).href;
const POINTS = 20_000;

describe('readerThreads: which thread count a reader asks the library for', () => {
  it('--threads when given, 0 (every core) when not, and a reader variable over both', () => {
    assert.equal(readerThreads(undefined), 0);
    assert.equal(readerThreads(3), 3);
    assert.equal(readerThreads(0), 0);
    process.env.XHD_TEST_READER_THREADS = '5';
    try {
      assert.equal(readerThreads(3, 'XHD_TEST_READER_THREADS'), 5);
      assert.equal(readerThreads(undefined, 'XHD_TEST_READER_THREADS'), 5);
    } finally {
      delete process.env.XHD_TEST_READER_THREADS;
    }
    assert.equal(readerThreads(3, 'XHD_TEST_READER_THREADS'), 3);
  });
});

/** Threads the process started while reading `file` (after a one-thread warm-up read), and the points read. */
function threadsStarted(warm: string, file: string, threads: number | undefined, env: Record<string, string>, cores?: string): { started: number; count: number } {
  const script = `
    import { readdirSync } from 'node:fs';
    const { readGeometry } = await import(${JSON.stringify(READ_MODULE)});
    const tasks = () => readdirSync('/proc/self/task').length;
    readGeometry(${JSON.stringify(warm)}, { threads: 1 });
    const before = tasks();
    const g = readGeometry(${JSON.stringify(file)}, ${JSON.stringify(threads === undefined ? {} : { threads })});
    process.stdout.write(JSON.stringify({ started: tasks() - before, count: g.count }));`;
  const command = [process.execPath, '--input-type=module', '-e', script];
  if (cores !== undefined) command.unshift('taskset', '-c', cores);
  const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8', env: { ...process.env, ...env } });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

const skip = !existsSync('/proc/self/task') ? 'no /proc/self/task to count threads in'
  : availableParallelism() < 2 ? 'one core: every read runs on one thread anyway'
    : !nativeReader() ? 'the native reader is not built' : false;

describe('a read with --threads 1 starts no thread; by default it does', { skip }, () => {
  let dir = '';
  const files: Record<string, string> = {};
  let warm = '';

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'xhd-reader-threads-'));
    const random = rng(77);
    const xyz = new Float64Array(3 * POINTS).map(() => Math.round(random() * 1e6) / 1e3);
    warm = join(dir, 'warm.csv');
    writeFileSync(warm, 'x,y,z\n0,0,0\n1,1,1\n');

    // Text is parsed in pieces of 1 MiB (XHD_READ_PIECE_BYTES would send it down the reader in pieces, whose
    // every piece is one native job): enough rows for several.
    files.csv = join(dir, 'points.csv');
    const rows = ['x,y,z'];
    for (let r = 0; r < 8; r++) for (let i = 0; i < POINTS; i++) rows.push(`${xyz[3 * i]},${xyz[3 * i + 1]},${xyz[3 * i + 2]}`);
    writeFileSync(files.csv, rows.join('\n') + '\n');

    files.ply = join(dir, 'points.ply');
    const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${POINTS}\nproperty double x\nproperty double y\nproperty double z\nend_header\n`;
    writeFileSync(files.ply, Buffer.concat([Buffer.from(header), Buffer.from(xyz.buffer)]));

    files.las = join(dir, 'points.las');
    const points = Array.from({ length: POINTS }, (_, i) => ({ X: Math.round(xyz[3 * i] * 1e3), Y: Math.round(xyz[3 * i + 1] * 1e3), Z: Math.round(xyz[3 * i + 2] * 1e3) }));
    writeFileSync(files.las, lasBytes(points, { scale: [0.001, 0.001, 0.001] }));

    files.laz = join(dir, 'points.laz');
    writeLaz(files.laz, { xyz }, { chunkSize: 1000 });

    // A 64³ mask: 4,096 rows of voxels, 64 blocks of the library's work.
    files.nii = join(dir, 'mask.nii');
    const n = 64;
    const values = new Uint8Array(n * n * n);
    for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      if ((i - 32) ** 2 + (j - 30) ** 2 + (k - 33) ** 2 < 25 ** 2) values[i + n * (j + n * k)] = 1;
    }
    writeNifti(files.nii, { dims: [n, n, n], values, datatype: 'uint8' });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const format of ['csv', 'ply', 'las', 'laz', 'nii']) {
    it(`${format}: one thread asked, none started; every core, some started; the same points`, () => {
      // Binary records in pieces of 64 KiB, so that files of a few hundred kilobytes are read on several threads.
      const env: Record<string, string> = format === 'csv' ? {} : { XHD_READ_PIECE_BYTES: '65536' };
      const one = threadsStarted(warm, files[format], 1, env);
      const every = threadsStarted(warm, files[format], undefined, env);
      assert.equal(one.started, 0, `${format} read with threads 1 started ${one.started} threads`);
      assert.ok(every.started >= 1, `${format} read on every core started no thread: this test cannot tell`);
      assert.equal(one.count, every.count);
      assert.ok(one.count > 0);
    });
  }

  // Slurm (--cpus-per-task), taskset and containers give a process fewer cores than the machine has: the
  // library's "every core" is those it may run on, not the machine's (std::thread::hardware_concurrency).
  it('every core means the cores this process may run on: confined to one, a default read starts no thread', { skip: !hasTaskset() && 'no taskset' }, () => {
    for (const format of ['las', 'nii']) {
      const confined = threadsStarted(warm, files[format], undefined, { XHD_READ_PIECE_BYTES: '65536' }, '0');
      assert.equal(confined.started, 0, `${format} read confined to core 0 started ${confined.started} threads`);
    }
  });
});

function hasTaskset(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true']).status === 0;
}
