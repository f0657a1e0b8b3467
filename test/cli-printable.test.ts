// Error messages quote the inputs' header lines and tokens; the CLI prints them with every control character
// shown as '?' (src/cli/printable.ts), so that a damaged file cannot split the line, move the cursor or start a
// terminal escape sequence. Found by mutating NRRD, MetaImage and PLY headers (stop 55).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { printable } from '../src/cli/printable.js';
import { PRINTED_CONTROLS, runXhd, scratchDir } from './cli-run.js';
import { fixture } from './helpers.js';


describe('messages printed without control characters', () => {
  it('printable: C0, DEL and C1 as ?, line feeds only where kept, other text as it is', () => {
    assert.equal(printable('a\u001b[31mb\rc\u000bd\u0000e\u007ff\u009bg\nh'), 'a?[31mb?c?d?e?f?g?h');
    assert.equal(printable('cause\n  Fix: rebuild', true), 'cause\n  Fix: rebuild');
    assert.equal(printable('x\u001bx\n', true), 'x?x\n');
    assert.equal(printable('Größe ≤ 3 µm · ok'), 'Größe ≤ 3 µm · ok');
  });

  it('a PLY header line with an escape sequence: one line, the file named, the escape shown as ?', () => {
    const dir = scratchDir();
    const path = join(dir, 'escape.ply');
    // (The reader ends the line at the carriage return.)
    writeFileSync(path, 'ply\nformat \u001b[2J\rbinary_little_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n', 'latin1');
    const r = runXhd(['compare', path, fixture('cube.off'), '--backend', 'cpu']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^xhd: [^\n]*escape\.ply:2: unsupported PLY format '\?\[2J'\n$/);
    assert.doesNotMatch(r.stderr, PRINTED_CONTROLS);
  });

  it("a batch pair's error line likewise", () => {
    const dir = scratchDir();
    const bad = join(dir, 'bad.ply');
    writeFileSync(bad, 'ply\nformat \u001b]0;title\u0007ascii 1.0\nend_header\n', 'latin1');
    const manifest = join(dir, 'pairs.csv');
    writeFileSync(manifest, `a,b\n${bad},${fixture('cube.off')}\n`);
    const r = runXhd(['batch', manifest, '--backend', 'cpu']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /bad\.ply:2: [^\n]*\?\]0;title\?ascii/);
    assert.doesNotMatch(r.stderr, PRINTED_CONTROLS);
  });
});
