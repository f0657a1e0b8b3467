// koffi, loaded through its native module. koffi's own index.js first loads its prebuilt-binary downloader,
// which requires Node's https (with tls and crypto) at load time, though xhd never downloads anything: 11-14 ms
// of every command's start on the 2-core VM, against 2-4 ms for the native module alone (docs/benchmarks.md,
// "Start-up"). The module is the one koffi's installer put in place for this platform; anywhere it is not there
// or does not load (musl, another layout, a version mismatch), koffi's index.js loads it as usual.
import { createRequire } from 'node:module';
import type * as Koffi from 'koffi';

const require = createRequire(import.meta.url);

function loadKoffi(): typeof Koffi {
  try {
    const native = require(`koffi/build/koffi/${process.platform}_${process.arch}/koffi.node`) as typeof Koffi & { version?: string };
    const wanted = (require('koffi/package.json') as { version: string }).version;
    if (native.version === wanted) return native;
  } catch {
    // not this layout or platform: koffi's own loader below knows the others
  }
  return require('koffi') as typeof Koffi;
}

const koffi = loadKoffi();
export default koffi;
