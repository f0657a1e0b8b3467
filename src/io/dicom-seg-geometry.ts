// Where a DICOM-SEG's frames lie (PS3.3 C.7.6.16, the multi-frame functional groups), as one regular 3-D grid: i
// along the row direction (the columns of a frame), j along the column direction (its rows), k along the slice
// normal (row × column), each frame one slice of it. Each frame's Pixel Measures, Plane Orientation and Plane
// Position come from its item of the Per-frame Functional Groups Sequence, else from the Shared one. Every frame must
// have the same orientation and pixel spacing; the slice step is SpacingBetweenSlices when given, else the smallest
// gap between distinct slice positions; every frame must lie on the grid within GRID_TOLERANCE of a step (in the
// plane and along the normal); anything else is refused naming the frame, never placed somewhere near.
import { affineFromAxes, RAS_FLIPS } from './volume-axes.js';
import { fieldError, type TagPlace } from './volume-data.js';
import type { DicomItem } from './dicom-dataset.js';

const SHARED = 'x52009229';
const PER_FRAME = 'x52009230';
const PIXEL_MEASURES = 'x00289110';
const PLANE_ORIENTATION = 'x00209116';
const PLANE_POSITION = 'x00209113';

/**
 * How far, as a fraction of the step along that axis, a frame may lie off the grid (and frames' spacing and direction
 * cosines may differ). A thousandth, not less: writers give positions to about six decimals, computed along direction
 * cosines of six digits, so a frame 300 mm from the origin is placed to a few 1e-4 mm; a thousandth of a 1 mm step
 * moves no point by more than that.
 */
export const GRID_TOLERANCE = 1e-3;

/** More slices than any volume xhd reads could have (the grid's size is checked against the data afterwards). */
const MAX_SLICES = 1 << 30;

/** Each frame's functional group macros: its own (Per-frame Functional Groups) first, else the shared ones. */
export class FunctionalGroups {
  private readonly shared: DicomItem | undefined;
  private readonly perFrame: DicomItem[];

  constructor(readonly top: DicomItem, readonly frames: number, numberOfFramesPlace: TagPlace) {
    const shared = top.items(SHARED);
    if (shared.length > 1) throw fieldError(top.place(SHARED), `${shared.length} items; it has one`);
    this.shared = shared[0];
    this.perFrame = top.items(PER_FRAME);
    if (this.perFrame.length !== frames) {
      throw fieldError(top.place(PER_FRAME), `${this.perFrame.length} items, but ${numberOfFramesPlace.field} is ${frames} (one item a frame)`);
    }
  }

  /** The first item of the macro's sequence for frame f (0-based), or undefined when neither group has one. */
  macro(frame: number, tag: string): DicomItem | undefined {
    return this.perFrame[frame].items(tag)[0] ?? this.shared?.items(tag)[0];
  }

  /** As macro, refused when neither group has it. */
  need(frame: number, tag: string, label: string): DicomItem {
    const item = this.macro(frame, tag);
    if (!item) {
      throw fieldError(this.top.place(PER_FRAME), `frame ${frame + 1} has no ${label} in its item or in the shared functional groups`);
    }
    return item;
  }
}

/** What one frame's functional groups say of its plane. */
interface FramePlane {
  spacing: [number, number];
  orientation: number[];
  position: number[];
  between?: number;
  thickness?: number;
  places: { spacing: TagPlace; orientation: TagPlace; position: TagPlace; between: TagPlace };
}

function planeOf(groups: FunctionalGroups, frame: number): FramePlane {
  const measures = groups.need(frame, PIXEL_MEASURES, '(0028,9110) PixelMeasuresSequence');
  const orientation = groups.need(frame, PLANE_ORIENTATION, '(0020,9116) PlaneOrientationSequence');
  const position = groups.need(frame, PLANE_POSITION, '(0020,9113) PlanePositionSequence');
  const places = {
    spacing: measures.place('x00280030'), orientation: orientation.place('x00200037'),
    position: position.place('x00200032'), between: measures.place('x00180088'),
  };
  const need = (item: DicomItem, tag: string, count: number) => {
    const values = item.numbers(tag, count);
    if (!values) throw fieldError(item.place(tag), `missing (frame ${frame + 1}), and the grid needs it`);
    return values;
  };
  const spacing = need(measures, 'x00280030', 2);
  if (!spacing.every((s) => s > 0)) throw fieldError(places.spacing, `${spacing.join('\\')}: the spacings must be positive (frame ${frame + 1})`);
  const between = measures.numbers('x00180088', 1)?.[0];
  if (between !== undefined && !(between > 0)) throw fieldError(places.between, `${between}: must be positive (frame ${frame + 1})`);
  const cosines = need(orientation, 'x00200037', 6);
  for (const [axis, v] of [cosines.slice(0, 3), cosines.slice(3)].entries()) {
    const length = Math.hypot(v[0], v[1], v[2]);
    if (!(Math.abs(length - 1) <= GRID_TOLERANCE)) {
      throw fieldError(places.orientation, `the ${axis === 0 ? 'row' : 'column'} direction has length ${length.toPrecision(6)}, not 1 (frame ${frame + 1})`);
    }
  }
  return {
    spacing: spacing as [number, number], orientation: cosines, position: need(position, 'x00200032', 3), between,
    thickness: measures.numbers('x00180050', 1)?.[0], places,
  };
}

export interface SegGrid {
  dims: [number, number, number];
  /** Row-major 3×4, RAS+ (DICOM's LPS with x and y negated). */
  affine: Float64Array;
  /** Each frame's slice k. */
  sliceOf: Int32Array;
  /** How the slice step was found. */
  stepNote: string;
  /** Slices no frame lies on. */
  emptySlices: number;
}

const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** The grid every frame lies on: dims [Columns, Rows, slices spanned], the affine, and each frame's slice. */
export function segGrid(groups: FunctionalGroups, rows: number, columns: number): SegGrid {
  const planes = Array.from({ length: groups.frames }, (_, f) => planeOf(groups, f));
  const first = planes[0];
  for (const [f, p] of planes.entries()) {
    if (!p.spacing.every((s, n) => Math.abs(s - first.spacing[n]) <= GRID_TOLERANCE * first.spacing[n])) {
      throw fieldError(p.places.spacing, `frame ${f + 1} has ${p.spacing.join('\\')}, frame 1 ${first.spacing.join('\\')}: the frames must share one pixel spacing`);
    }
    if (!p.orientation.every((c, n) => Math.abs(c - first.orientation[n]) <= GRID_TOLERANCE)) {
      throw fieldError(p.places.orientation, `frame ${f + 1} has ${p.orientation.join('\\')}, frame 1 ${first.orientation.join('\\')}: the frames must share one orientation`);
    }
  }
  const row = first.orientation.slice(0, 3), column = first.orientation.slice(3);
  const cross = [row[1] * column[2] - row[2] * column[1], row[2] * column[0] - row[0] * column[2], row[0] * column[1] - row[1] * column[0]];
  const crossLength = Math.hypot(cross[0], cross[1], cross[2]);
  if (!(crossLength > 0.5)) throw fieldError(first.places.orientation, 'the row and column directions are (nearly) parallel');
  const normal = cross.map((x) => x / crossLength);
  // PixelSpacing is the spacing between rows (along the column direction), then between columns (along the row direction).
  const [rowSpacing, columnSpacing] = first.spacing;

  const depth = planes.map((p) => dot(p.position, normal));
  let lowest = 0;
  for (let f = 1; f < planes.length; f++) if (depth[f] < depth[lowest]) lowest = f;
  const { step, stepNote } = sliceStep(planes, depth, Math.min(rowSpacing, columnSpacing));
  const origin = planes[lowest].position;
  const sliceOf = new Int32Array(planes.length);
  for (const [f, p] of planes.entries()) {
    const offset = [0, 1, 2].map((r) => p.position[r] - origin[r]);
    const along = [dot(offset, row) / columnSpacing, dot(offset, column) / rowSpacing];
    const k = (depth[f] - depth[lowest]) / step;
    const off = Math.max(Math.abs(along[0]), Math.abs(along[1]), Math.abs(k - Math.round(k)));
    if (!(off <= GRID_TOLERANCE)) {
      throw fieldError(p.places.position, `frame ${f + 1} at ${p.position.join('\\')} lies ${off.toPrecision(3)} of a step off the grid `
        + `that frame ${lowest + 1} (the lowest) and the slice step of ${Number(step.toPrecision(6))} mm make (${stepNote}); a regular grid is read`);
    }
    if (k > MAX_SLICES) throw fieldError(p.places.position, `frame ${f + 1} lies ${k.toPrecision(3)} slice steps of ${Number(step.toPrecision(6))} mm from the lowest frame: too many slices`);
    sliceOf[f] = Math.round(k);
  }
  let slices = 0;
  for (const k of sliceOf) slices = Math.max(slices, k + 1);
  const emptySlices = slices - new Set(sliceOf).size;
  const axes = [row.map((x) => x * columnSpacing), column.map((x) => x * rowSpacing), normal.map((x) => x * step)];
  const affine = affineFromAxes(axes, origin, RAS_FLIPS['left-posterior-superior'], first.places.orientation, planes[lowest].places.position);
  return { dims: [columns, rows, slices], affine, sliceOf, stepNote, emptySlices };
}

/**
 * SpacingBetweenSlices (the same in every frame) when given; else the smallest gap between frames' positions along
 * the normal that is no mere rounding (over GRID_TOLERANCE of the smaller pixel spacing); a single slice takes its
 * SliceThickness, else 1 mm (it is never stepped along).
 */
function sliceStep(planes: FramePlane[], depth: number[], pixel: number): { step: number; stepNote: string } {
  const given = planes[0].between;
  if (given !== undefined) {
    for (const [f, p] of planes.entries()) {
      if (p.between === undefined || Math.abs(p.between - given) > GRID_TOLERANCE * given) {
        throw fieldError(p.places.between, `frame ${f + 1} has ${p.between ?? 'none'}, frame 1 ${given}: the frames must share one slice spacing`);
      }
    }
    return { step: given, stepNote: 'SpacingBetweenSlices' };
  }
  const sorted = [...depth].sort((a, b) => a - b);
  let step = Infinity;
  for (let n = 1; n < sorted.length; n++) {
    const gap = sorted[n] - sorted[n - 1];
    if (gap > GRID_TOLERANCE * pixel && gap < step) step = gap;
  }
  if (Number.isFinite(step)) return { step, stepNote: 'the smallest gap between frame positions' };
  const thickness = planes[0].thickness;
  if (thickness !== undefined && thickness > 0) return { step: thickness, stepNote: 'one slice: its SliceThickness' };
  return { step: 1, stepNote: 'one slice, no SliceThickness: 1 mm' };
}
