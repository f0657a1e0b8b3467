// LAS and LAZ files: the header and (E)VLRs (las-header.ts, las-vlrs.ts), the CRS they state (las-crs.ts),
// then the points, from an uncompressed body (las-native.ts on every core where the library is built, else
// las-body.ts) or LAZ chunks (laz-body.ts; a COPC file's octree nodes, copc.ts), filtered while decoded.
// Coordinates are the file's integers scaled in double: a Float64Array, which xhd is exact over.
import { badCoordinate, boundsAreExact, finishGeometry, firstInexactCoordinate, plural } from './build.js';
import { computeBounds, type Bounds, type Geometry, type ReadOptions } from './geometry.js';
import { withOpenFile } from './input-file.js';
import { allocatePositions } from './allocate-positions.js';
import { isCrsRecord, lasCrs } from './las-crs.js';
import { checkLasBodySize, parseLasHeader, type LasHeader } from './las-header.js';
import { readLasBody } from './las-body.js';
import { readLasNatively } from './las-native.js';
import { newTally, recordFilter, TALLY_MAX, TALLY_MIN, TALLY_RAW_MAX, TALLY_RAW_MIN } from './las-records.js';
import { lidarSummary, type LidarSummary } from './las-summary.js';
import { readLasVlrs, readVlrPayload, MAX_PAYLOAD, type LasVlr } from './las-vlrs.js';
import { readLazBody } from './laz-body.js';
import { nativeReader } from './native-reader.js';
import { filteredNote, hasFilters } from './point-filters.js';
import type { CopcSummary } from './copc-select.js';
import { formatCount } from '../core/counts.js';

/** Reads a LAS or LAZ file of `size` bytes whose first bytes are `prefix`. */
export function readLasFile(path: string, size: number, prefix: Uint8Array, options: ReadOptions): Geometry {
  const header = parseLasHeader(prefix, size, path);
  return withOpenFile(path, (fd) => {
    const vlrs = readLasVlrs(fd, header, size, path);
    const crs = vlrsCrs(fd, vlrs);
    const filters = options.filters;
    const filter = recordFilter(filters);
    let body: LasBody;
    if (header.compressed) {
      body = readLazBody(fd, path, size, header, vlrs, filter, options.lasAttributes === true, options.threads);
    } else {
      checkLasBodySize(header, size, path);
      const reader = nativeReader();
      if (reader) {
        body = readLasNatively(reader, path, header, filter, filters?.every ?? 1, options.lasAttributes === true, options.threads);
      } else {
        const positions = allocatePositions(header.pointCount, path);
        const tally = newTally();
        const attributes = options.lasAttributes ? new Uint8Array(2 * header.pointCount) : undefined;
        body = { positions, kept: readLasBody(fd, path, header, filter, positions, tally, attributes ?? null), tally, attributes };
      }
    }
    return lasGeometry(path, header, vlrs, body, options, crs);
  });
}

/** The CRS the file's (E)VLRs state, read from those no larger than MAX_PAYLOAD. */
export function vlrsCrs(fd: number, vlrs: LasVlr[]): ReturnType<typeof lasCrs> {
  return lasCrs(vlrs.filter((v) => isCrsRecord(v) && v.payloadLength <= MAX_PAYLOAD).map((vlr) => ({ vlr, payload: readVlrPayload(fd, vlr) })));
}

/** The note on CRS records too large to read, or undefined. */
export function skippedCrsNote(vlrs: LasVlr[]): string | undefined {
  const skipped = vlrs.filter((v) => isCrsRecord(v) && v.payloadLength > MAX_PAYLOAD).length;
  return skipped > 0 ? `${plural(skipped, 'CRS record')} over ${MAX_PAYLOAD / 1024 ** 2} MiB not read` : undefined;
}

/** The decoded body; `thinned` when --every is applied already (the native reader does), its bounds in the tally. */
type LasBody = { positions: Float64Array; kept: number; tally: Float64Array; laz?: LidarSummary['laz']; attributes?: Uint8Array; copc?: CopcSummary; thinned?: boolean };

/** Keeps the first of every `every` points (and their attributes), in place; returns how many remain. */
function thin(positions: Float64Array, count: number, every: number, attributes?: Uint8Array): number {
  let kept = 0;
  for (let v = 0; v < count; v += every, kept++) {
    positions.copyWithin(3 * kept, 3 * v, 3 * v + 3);
    attributes?.copyWithin(2 * kept, 2 * v, 2 * v + 2);
  }
  return kept;
}

function lasGeometry(path: string, header: LasHeader, vlrs: LasVlr[], body: LasBody, options: ReadOptions, crs: ReturnType<typeof lasCrs>): Geometry {
  const { tally } = body;
  let kept = body.kept;
  const thinHere = (options.filters?.every ?? 1) > 1 && body.thinned !== true;
  if (thinHere) kept = thin(body.positions, kept, options.filters!.every!, body.attributes);
  const positions = 3 * kept === body.positions.length ? body.positions : body.positions.slice(0, 3 * kept);
  const bounds: Bounds = thinHere ? computeBounds(positions)
    : { min: [tally[TALLY_MIN], tally[TALLY_MIN + 1], tally[TALLY_MIN + 2]], max: [tally[TALLY_MAX], tally[TALLY_MAX + 1], tally[TALLY_MAX + 2]] };
  if (kept > 0 && !boundsAreExact(bounds)) {
    const bad = firstInexactCoordinate(positions);
    const where = options.filters ? { byte: 131 } : { byte: header.pointDataOffset + Math.floor(bad / 3) * header.recordLength };
    throw badCoordinate(path, header.compressed ? { byte: 131 } : where, positions[bad], Math.floor(bad / 3));
  }
  const notes: string[] = [];
  const waveform = waveformNote(header);
  if (waveform) notes.push(waveform);
  const outside = outsideHeaderBounds(header, tally);
  if (outside) notes.push(outside);
  if (hasFilters(options.filters)) notes.push(filteredNote(kept, header.pointCount, options.filters));
  const copc = body.copc;
  if (copc && copc.nodesRead < copc.nodes) {
    notes.push(`COPC: --bbox decoded ${plural(copc.nodesRead, 'node')} of ${formatCount(copc.nodes)} (${plural(copc.pointsRead, 'point')}); the counts by class and return are of those`);
  }
  const skipped = skippedCrsNote(vlrs);
  if (skipped) notes.push(skipped);
  const geometry = finishGeometry({ positions, dims: 3, format: header.compressed ? 'laz' : 'las', notes, bounds: kept > 0 ? bounds : undefined });
  if (crs) geometry.crs = crs;
  geometry.lidar = lidarSummary(header, tally, body.laz, body.copc);
  if (body.attributes) geometry.lasAttributes = body.attributes.length === 2 * kept ? body.attributes : body.attributes.slice(0, 2 * kept);
  return geometry;
}

/**
 * A note when the records' coordinates reach outside the bounds the header states, by more than half a
 * scale step (the header's bounds are rounded doubles): the header, or the points, are not what they claim.
 */
function outsideHeaderBounds(header: LasHeader, tally: Float64Array): string | undefined {
  if (header.pointCount === 0 || !(tally[TALLY_RAW_MIN] <= tally[TALLY_RAW_MAX])) return undefined;
  const low: number[] = [], high: number[] = [];
  for (let k = 0; k < 3; k++) {
    const lo = tally[TALLY_RAW_MIN + k] * header.scale[k] + header.offset[k];
    const hi = tally[TALLY_RAW_MAX + k] * header.scale[k] + header.offset[k];
    [low[k], high[k]] = header.scale[k] > 0 ? [lo, hi] : [hi, lo];
  }
  return headerBoundsNote(header, low, high);
}

/** The same note from the scaled points' own bounds (the streamed compare reads those, not the integers). */
export function headerBoundsNote(header: LasHeader, low: number[], high: number[]): string | undefined {
  if ([...header.min, ...header.max].every((v) => v === 0)) return undefined; // bounds never filled in: nothing stated
  const axes: string[] = [];
  for (let k = 0; k < 3; k++) {
    const slack = Math.abs(header.scale[k]) / 2;
    if (low[k] < header.min[k] - slack || high[k] > header.max[k] + slack) axes.push(`${'xyz'[k]} spans ${low[k]} to ${high[k]}, the header says ${header.min[k]} to ${header.max[k]}`);
  }
  return axes.length > 0 ? `points lie outside the header's bounds: ${axes.join('; ')}` : undefined;
}

/** The note on a format whose waveform packets are not read, or undefined. */
export function waveformNote(header: LasHeader): string | undefined {
  return header.pointFormat.waveform ? `LAS point format ${header.pointFormat.id} carries waveform packets: the points are read, the waveforms ignored` : undefined;
}
