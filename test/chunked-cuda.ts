// The CUDA (and OptiX) backend's chunked path, checked the same way wherever it is exercised: under a 40 MiB device
// budget, where the source does not fit beside the target, a directed run takes several query chunks and
// gives the CPU's answer, witnesses included.
import assert from 'node:assert/strict';

import { hausdorff } from '../src/ops/hausdorff.js';

export async function assertChunkedLikeCpu(a: Float32Array | Float64Array, b: Float32Array | Float64Array,
  backend: 'cuda' | 'optix' = 'cuda'): Promise<void> {
  const whole = await hausdorff(a, b, { backend: 'cpu', directed: true });
  process.env.XHD_CUDA_MEMORY_LIMIT = String(40 << 20);
  try {
    const chunked = await hausdorff(a, b, { backend, directed: true });
    assert.ok(chunked.queryChunks > 1, `expected several chunks, got ${chunked.queryChunks}`);
    assert.deepEqual([chunked.ab.distance, chunked.ab.fromIndex, chunked.ab.toIndex], [whole.ab.distance, whole.ab.fromIndex, whole.ab.toIndex]);
  } finally {
    delete process.env.XHD_CUDA_MEMORY_LIMIT;
  }
}
