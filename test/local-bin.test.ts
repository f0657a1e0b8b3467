// `npm install` in a checkout links node_modules/.bin/xhd to bin/xhd, so that `npx xhd` runs the checkout
// at once instead of installing (and building) a second copy in npx's cache.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

import { repoRoot, xhdBin } from './helpers.js';

it('node_modules/.bin/xhd is this checkout\'s bin/xhd', () => {
  assert.equal(realpathSync(join(repoRoot, 'node_modules', '.bin', 'xhd')), realpathSync(xhdBin));
});
