// The layers of src/, top to bottom, and the two rules the layer test applies to its import graph.
// A file may import files of its own layer and of any layer ranked below it; layers of equal rank (the
// command line and the public API) may not import each other.

export interface Layer {
  name: string;
  /** Where its files live: a folder ('jobs/') or one file ('index.ts'). */
  place: string;
  /** 0 is the top. */
  rank: number;
}

export const SRC_LAYERS: Layer[] = [
  { name: 'api', place: 'index.ts', rank: 0 },
  { name: 'cli', place: 'cli/', rank: 0 },
  { name: 'report', place: 'report/', rank: 1 },
  { name: 'jobs', place: 'jobs/', rank: 2 },
  { name: 'ops', place: 'ops/', rank: 3 },
  { name: 'sampling', place: 'sampling/', rank: 4 },
  { name: 'io', place: 'io/', rank: 5 },
  { name: 'native', place: 'native/', rank: 6 },
  { name: 'metrics', place: 'metrics/', rank: 7 },
  { name: 'core', place: 'core/', rank: 8 },
];

export interface ImportEdge {
  /** The importing file, relative to src/. */
  from: string;
  /** The imported file relative to src/ (relative imports), else the package name. */
  to: string;
  relative: boolean;
}

export function layerOf(file: string): Layer | undefined {
  return SRC_LAYERS.find((l) => (l.place.endsWith('/') ? file.startsWith(l.place) : file === l.place));
}

/** Each import that leaves its layer for one ranked above it (or beside it), as a sentence. */
export function upwardImports(edges: ImportEdge[]): string[] {
  const found: string[] = [];
  for (const e of edges) {
    if (!e.relative) continue;
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    if (!from || !to || from === to || to.rank > from.rank) continue;
    found.push(`${e.from} (${from.name}) imports ${e.to} (${to.name})`);
  }
  return found;
}

/** Every cycle among the files (each reported once, from its smallest file), as "a → b → a". */
export function importCycles(edges: ImportEdge[]): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) if (e.relative) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const cycles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') cycles.add(canonicalCycle(path.slice(path.indexOf(to))));
      else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...next.keys()].sort()) if (!state.has(file)) visit(file);
  return [...cycles].sort();
}

function canonicalCycle(files: string[]): string {
  const start = files.indexOf([...files].sort()[0]);
  const rotated = [...files.slice(start), ...files.slice(0, start)];
  return [...rotated, rotated[0]].join(' → ');
}
