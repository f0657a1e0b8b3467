// --backend auto for a pair of voxel masks, decided once their surface points are known. A GPU's start (the
// driver, a context, the library's kernels) takes 150-250 ms on the H100 and H200 hosts measured, more than the
// whole search of a typical segmentation pair on the CPU: a BraTS-sized pair (about 117,000 surface points) is
// searched in about 22 ms on 16 cores there, and its process wall was 360-610 ms on the GPU against 190-300 ms on
// the CPU (docs/benchmarks.md, "Masks end to end"). So auto keeps such pairs on the CPU and starts the GPU only
// for larger ones. Point clouds keep starting the GPU while their files are read: their size is not known before.
import { formatCount } from '../core/counts.js';

/** CPU time of the exact search a point costs, in microseconds on one core: about 3 on the H200 hosts (2 there). */
const CPU_MICROSECONDS_PER_POINT_CORE = 3;

/** The GPU start the CPU search must beat, in milliseconds: the low end of what the hosts measured. */
const GPU_START_MS = 150;

/** Whether searching `points` (both sides together) on `threads` cores is expected to end before a GPU has started. */
export function cpuBeatsGpuStart(points: number, threads: number): boolean {
  return (points * CPU_MICROSECONDS_PER_POINT_CORE) / Math.max(1, threads) / 1000 < GPU_START_MS;
}

/** The note a compare carries when auto kept it on the CPU. */
export function autoCpuNote(points: number, threads: number): string {
  // formatCount, not toLocaleString: that starts ICU, 10-30 ms of a one-off compare.
  return `--backend auto searched on the CPU: ${formatCount(points)} surface points on ${threads} core${threads === 1 ? '' : 's'} take less time than a GPU's start (--backend cuda runs it there)`;
}
