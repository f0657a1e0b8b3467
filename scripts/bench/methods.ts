// The methods compared, and what measuring one of them on one case yields.
import type { DatasetName } from '../datasets.js';

export const OURS = ['grid', 'eb'] as const;
export const PEERS = ['scipy', 'open3d'] as const;
export type Ours = (typeof OURS)[number];
export type Peer = (typeof PEERS)[number];
export type MethodName = Ours | Peer;
export const METHOD_NAMES: readonly MethodName[] = [...OURS, ...PEERS];
export const LABELS: Record<MethodName, string> = { grid: 'grid', eb: 'eb', scipy: 'SciPy', open3d: 'Open3D' };

export type Outcome =
  | { kind: 'done'; ms: number; wallMs: number; hd: number; runs: number; evals?: number; childCpuS?: number; outsideCores?: number;
      buildMs?: number; queryMs?: number }
  | { kind: 'timeout' }
  | { kind: 'skipped'; why: string }
  | { kind: 'failed'; why: string };

/** One case at one size: every method's outcome, and those whose HD disagrees with the reference. */
export interface CaseRow {
  name: DatasetName;
  n: number;
  outcomes: Record<MethodName, Outcome>;
  disagreeing: Set<MethodName>;
}

/** The HD of the first method (in table order) that finished. */
export function referenceHd(row: CaseRow): number | undefined {
  for (const m of METHOD_NAMES) {
    const o = row.outcomes[m];
    if (o.kind === 'done') return o.hd;
  }
  return undefined;
}
