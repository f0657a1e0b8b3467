// Start-up: the CLI loads only the command it runs (issue: fast start), and still lists and suggests every
// command where help or a mistyped name needs them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { commandsFor } from '../src/cli/main.js';
import { runXhd } from './cli-run.js';

const ALL = ['compare', 'batch', 'distance', 'info', 'doctor'];

describe('which command modules the CLI loads', () => {
  it('the command named, even after options or before its own', () => {
    assert.deepEqual(commandsFor(['node', 'xhd', 'compare', 'a.ply', 'b.ply', '--json']), ['compare']);
    assert.deepEqual(commandsFor(['node', 'xhd', 'doctor']), ['doctor']);
    assert.deepEqual(commandsFor(['node', 'xhd', '--help', 'distance']), ['distance']);
  });

  it('none for the version alone; every one for help, no arguments or an unknown command', () => {
    assert.deepEqual(commandsFor(['node', 'xhd', '--version']), []);
    assert.deepEqual(commandsFor(['node', 'xhd', '-v']), []);
    for (const argv of [['--help'], [], ['comapre', 'a', 'b'], ['help', 'compare'], ['constructor']])
      assert.deepEqual(commandsFor(['node', 'xhd', ...argv]), ALL, argv.join(' '));
  });

  it('end to end: the version, the full help, and the suggestion for a mistyped command', () => {
    const version = runXhd(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
    const help = runXhd(['--help']);
    assert.equal(help.code, 0);
    for (const name of ALL) assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'));
    const typo = runXhd(['comapre', 'a', 'b']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Did you mean compare\?/);
  });
});
