// In a checkout, `npm install` also links node_modules/.bin/xhd to bin/xhd, so `npx xhd` runs this
// checkout at once. Without the link npx does not find xhd among the local binaries (npm links the bins
// of dependencies, not the project's own) and installs a second copy into its cache, rebuilding the
// native libraries there: two minutes of silence on the first call. Installed as a dependency, the
// package is not the project npm runs in, and npm links its bin itself: nothing to do.
import { existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const project = process.env.INIT_CWD ? resolve(process.env.INIT_CWD) : root;
if (project === root) {
  const bin = join(root, 'node_modules', '.bin');
  const link = join(bin, 'xhd');
  const present = (() => {
    try {
      lstatSync(link);
      return true;
    } catch {
      return false;
    }
  })();
  if (!present && existsSync(join(root, 'bin', 'xhd'))) {
    mkdirSync(bin, { recursive: true });
    symlinkSync(relative(bin, join(root, 'bin', 'xhd')), link);
  }
}
