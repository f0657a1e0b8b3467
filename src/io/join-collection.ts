// A join collection (`xhd join A B`): many objects, each a triangle mesh, with an id each, laid out as the
// library takes them: one vertex array, one triangle array, object offsets. Sources:
//   - a directory: every mesh file in it (.off .ply .obj .stl), one object each, id = file name without extension;
//   - a manifest (.csv, .jsonl): one mesh file a line, id = its id column, else its path as written;
//   - one mesh file: its connected components (`name#0`, `name#1`, … in order of their first face), or with
//     objects 'groups' its OBJ `o`/`g` groups (`name#group`).
// Objects are ordered by id (code-unit order), so that ties broken by index are ties broken by id.
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join as joinPath } from 'node:path';

import { InputError, UsageError } from '../core/errors.js';
import type { Coordinates } from './geometry.js';
import { readGeometry } from './read.js';
import { readGeometries, readOutcome, type ReadOutcome } from './read-geometries.js';
import { isManifestPath, readManifest } from './join-manifest.js';
import { connectedComponents } from './mesh-components.js';
import { objGroupOfTriangles } from './obj-groups.js';
import type { Geometry } from './geometry.js';

export type ObjectSplit = 'components' | 'groups';

export interface CollectionObject {
  id: string;
  /** Where it came from: a file, or a manifest line. */
  source: string;
  triangles: number;
}

export interface JoinCollection {
  path: string;
  kind: 'directory' | 'manifest' | 'file';
  objects: CollectionObject[];
  positions: Coordinates;
  /** Vertex-index triples into positions, object after object. */
  triangles: Uint32Array;
  /** objects.length + 1 offsets into the triangles, counted in triangles. */
  objectFaces: BigUint64Array;
  vertexCount: number;
}

const MESH_EXTENSIONS = new Set(['.off', '.ply', '.obj', '.stl']);

interface Part {
  id: string;
  source: string;
  geometry: Geometry;
  /** The triangles of geometry that make this object (null: all of them). */
  faces: Uint32Array | null;
  /** Where to name a problem with this part: the manifest line, else its file. */
  blame: () => InputError;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function hasFaces(g: Geometry): boolean {
  return g.triangles !== undefined && g.triangles.length > 0;
}

/** A collection's file (a directory's, a manifest's line), before it is read: a check failed here comes first. */
interface FileEntry {
  id: string;
  source: string;
  path: string;
  /** Why this entry is refused before its file is read (an id repeated, a file missing), if it is. */
  refused?: InputError;
  blame: () => InputError;
}

function directoryEntries(dir: string): FileEntry[] {
  const names = readdirSync(dir).filter((n) => MESH_EXTENSIONS.has(extname(n).toLowerCase())).sort();
  if (names.length === 0) throw new InputError(dir, {}, 'the directory holds no mesh files (.off, .ply, .obj, .stl)');
  const seen = new Map<string, string>();
  return names.map((name) => {
    const id = basename(name, extname(name));
    const path = joinPath(dir, name);
    const other = seen.get(id);
    const refused = other !== undefined ? new InputError(path, {}, `its id '${id}' repeats that of ${joinPath(dir, other)}`) : undefined;
    if (other === undefined) seen.set(id, name);
    return { id, source: path, path, refused, blame: () => new InputError(path, {}, 'has no faces: a join object must be a triangle mesh') };
  });
}

function manifestEntries(manifest: string): FileEntry[] {
  const entries = readManifest(manifest);
  const base = dirname(manifest);
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const id = e.id ?? e.path;
    const before = seen.get(id);
    const path = isAbsolute(e.path) ? e.path : joinPath(base, e.path);
    let refused: InputError | undefined;
    if (before !== undefined) refused = new InputError(manifest, { line: e.line }, `id '${id}' repeats line ${before}`);
    else if (!exists(path)) refused = new InputError(manifest, { line: e.line }, `${e.path}: no such file`);
    if (before === undefined) seen.set(id, e.line);
    return {
      id, source: `${manifest}:${e.line}`, path, refused,
      blame: () => new InputError(manifest, { line: e.line }, `${e.path} has no faces: a join object must be a triangle mesh`),
    };
  });
}

/** The entries' parts, from their read outcomes: the first refusal or read error, in the entries' order, is thrown. */
function entryParts(entries: FileEntry[], read: (i: number) => ReadOutcome): Part[] {
  return entries.map((e, i) => {
    if (e.refused !== undefined) throw e.refused;
    const outcome = read(i);
    if ('error' in outcome) throw outcome.error;
    return { id: e.id, source: e.source, geometry: outcome.geometry, faces: null, blame: e.blame };
  });
}

/** The entries read up to the first one refused (a serial read stops there; reading past it would waste time). */
function entriesToRead(entries: FileEntry[]): string[] {
  const refused = entries.findIndex((e) => e.refused !== undefined);
  return entries.slice(0, refused < 0 ? entries.length : refused).map((e) => e.path);
}

function fileParts(path: string, split: ObjectSplit): Part[] {
  const geometry = readGeometry(path);
  if (!hasFaces(geometry)) throw new InputError(path, {}, 'has no faces: a join collection file must be a triangle mesh');
  const name = basename(path, extname(path));
  const blame = () => new InputError(path, {}, 'has an object without faces');
  if (split === 'components') {
    return connectedComponents(geometry.triangles!, geometry.count).map((faces, k) => ({ id: `${name}#${k}`, source: path, geometry, faces, blame }));
  }
  if (geometry.format !== 'obj') throw new UsageError(`--objects groups reads OBJ o/g groups; ${path} is ${geometry.format.toUpperCase()} (use --objects components)`);
  const groups = objGroupOfTriangles(path, geometry.triangles!.length / 3);
  return groups.map((g) => ({ id: `${name}#${g.name}`, source: path, geometry, faces: g.triangles, blame }));
}

function collectionKind(path: string): JoinCollection['kind'] {
  if (!isDirectory(path) && !exists(path)) throw new InputError(path, {}, 'no such file or directory');
  return isDirectory(path) ? 'directory' : isManifestPath(path) ? 'manifest' : 'file';
}

/** Reads a collection on this thread; every problem is an InputError (exit 2) naming the file and, for manifests, the line. */
export function readJoinCollection(path: string, split: ObjectSplit = 'components'): JoinCollection {
  const kind = collectionKind(path);
  if (kind === 'file') return assemble(path, kind, fileParts(path, split));
  const entries = kind === 'directory' ? directoryEntries(path) : manifestEntries(path);
  return assemble(path, kind, entryParts(entries, (i) => readOutcome(entries[i].path)));
}

/**
 * readJoinCollection with a directory's or a manifest's files read on up to `threads` threads (read-geometries.ts):
 * the same collection, or the same error.
 */
export async function readJoinCollectionAsync(path: string, split: ObjectSplit = 'components', threads?: number): Promise<JoinCollection> {
  const kind = collectionKind(path);
  if (kind === 'file') return assemble(path, kind, fileParts(path, split));
  const entries = kind === 'directory' ? directoryEntries(path) : manifestEntries(path);
  const outcomes = await readGeometries(entriesToRead(entries), threads);
  return assemble(path, kind, entryParts(entries, (i) => outcomes[i]));
}

/** One collection from its parts, ordered by id, in the layout the library takes. */
function assemble(path: string, kind: JoinCollection['kind'], parts: Part[]): JoinCollection {
  for (const p of parts) if (!hasFaces(p.geometry) || (p.faces !== null && p.faces.length === 0)) throw p.blame();
  parts.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));

  // One vertex array: each distinct geometry once (components share theirs), float32 only if all are.
  const geometries = [...new Set(parts.map((p) => p.geometry))];
  const allFloat = geometries.every((g) => g.positions instanceof Float32Array);
  const vertexCount = geometries.reduce((n, g) => n + g.count, 0);
  const positions = allFloat ? new Float32Array(3 * vertexCount) : new Float64Array(3 * vertexCount);
  const offsetOf = new Map<Geometry, number>();
  let at = 0;
  for (const g of geometries) {
    positions.set(g.positions, 3 * at);
    offsetOf.set(g, at);
    at += g.count;
  }
  const triangleCount = parts.reduce((n, p) => n + (p.faces === null ? p.geometry.triangles!.length / 3 : p.faces.length), 0);
  const triangles = new Uint32Array(3 * triangleCount);
  const objectFaces = new BigUint64Array(parts.length + 1);
  let t = 0;
  parts.forEach((p, i) => {
    const shift = offsetOf.get(p.geometry)!;
    const src = p.geometry.triangles!;
    const faces = p.faces ?? null;
    if (faces === null) {
      // A whole file's triangles: one flat loop (200,000 nuclei hold 59M triangles).
      const at = 3 * t, end = at + src.length;
      triangles.set(src, at);
      if (shift !== 0) for (let k = at; k < end; k++) triangles[k] += shift;
      t += src.length / 3;
    } else {
      for (let k = 0; k < faces.length; k++) {
        const f = faces[k];
        triangles[3 * t] = src[3 * f] + shift;
        triangles[3 * t + 1] = src[3 * f + 1] + shift;
        triangles[3 * t + 2] = src[3 * f + 2] + shift;
        t++;
      }
    }
    objectFaces[i + 1] = BigInt(t);
  });
  const objects = parts.map((p) => ({ id: p.id, source: p.source, triangles: p.faces === null ? p.geometry.triangles!.length / 3 : p.faces.length }));
  return { path, kind, objects, positions, triangles, objectFaces, vertexCount };
}
