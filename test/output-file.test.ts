// Output files (--export, --heatmap) are written under a temporary name and renamed when complete: an
// interrupt or an error never leaves a partial file, and a file already there survives a failed write.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { CancelledError, OutputError } from '../src/core/errors.js';
import { writeOutputFile } from '../src/report/output-file.js';
import { scratchDir, writeXyz } from './cli-run.js';
import { xhdBin } from './helpers.js';
import { rng, uniform } from './random-points.js';

const MiB = 1 << 20;

describe('writeOutputFile', () => {
  it('writes every chunk, then renames: nothing else is left in the directory', async () => {
    const dir = scratchDir(), path = join(dir, 'out.bin');
    await writeOutputFile(path, function* () {
      yield Buffer.from('head ');
      yield Buffer.from('tail');
    });
    assert.equal(readFileSync(path, 'utf8'), 'head tail');
    assert.deepEqual(readdirSync(dir), ['out.bin']);
  });

  it('an abort (SIGTERM) between chunks ends with exit 143, removes the partial file, keeps the old one', async () => {
    const dir = scratchDir(), path = join(dir, 'out.bin');
    writeFileSync(path, 'before');
    const abort = new AbortController();
    const chunk = new Uint8Array(4 * MiB);
    const writing = writeOutputFile(path, function* () {
      for (let k = 0; k < 16; k++) {
        if (k === 5) abort.abort('SIGTERM'); // as the signal handler would, between two pauses
        yield chunk;
      }
    }, abort.signal);
    await assert.rejects(writing, (error: unknown) => error instanceof CancelledError && error.exitCode === 143);
    assert.equal(readFileSync(path, 'utf8'), 'before');
    assert.deepEqual(readdirSync(dir), ['out.bin']);
  });

  it('a failing producer is an OutputError naming the file, and nothing is left', async () => {
    const dir = scratchDir(), path = join(dir, 'out.bin');
    const writing = writeOutputFile(path, function* () {
      yield Buffer.from('some');
      throw new Error('disk on fire');
    });
    await assert.rejects(writing, (error: unknown) => error instanceof OutputError && error.message.startsWith(`${path}: cannot write`));
    assert.deepEqual(readdirSync(dir), []);
  });
});

describe('an interrupted --export', () => {
  it('SIGINT while the file is written: exit 130, no file, no partial file', async () => {
    const dir = scratchDir();
    const random = rng(3);
    writeXyz(join(dir, 'a.xyz'), uniform(400_000, 3, random));
    writeXyz(join(dir, 'b.xyz'), uniform(400_000, 3, random));
    const out = join(dir, 'out.csv');
    const child = spawn(process.execPath, [xhdBin, 'compare', join(dir, 'a.xyz'), join(dir, 'b.xyz'), '--export', out,
      '--backend', 'cpu', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Interrupt once the temporary file exists: the measuring is over and the writing under way.
    let sent = false;
    while (!sent) {
      if (readdirSync(dir).some((name) => name.endsWith('.partial'))) {
        child.kill('SIGINT');
        sent = true;
      } else if (child.exitCode !== null) {
        break;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    const code = await exited;
    assert.ok(sent, `the export finished before it could be interrupted (exit ${code}); make the input larger`);
    assert.equal(code, 130, stderr);
    assert.equal(stderr, 'xhd: cancelled\n');
    assert.ok(!existsSync(out), 'no export file');
    assert.deepEqual(readdirSync(dir).sort(), ['a.xyz', 'b.xyz']);
  });
});
