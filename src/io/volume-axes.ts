// The voxel-to-millimetre affine of an NRRD, MetaImage or DICOM-SEG volume from its axes (one vector a voxel step along each
// grid axis, in the file's world space) and the centre of its first voxel, turned into NIfTI's RAS+ space so that
// the same image saved in any of the formats gives the same points. The axes must be finite, of nonzero length,
// and at right angles to each other (a sheared grid is no scanner's), else the file is refused naming the field.
import { fieldError, type FieldPlace, type TagPlace } from './volume-data.js';

/**
 * World spaces the formats name, by how they differ from RAS+: which of x and y point the other way. NRRD names its
 * space (RAS, LAS, LPS or spaces without anatomy); MetaImage (ITK) and DICOM patient coordinates are always LPS.
 */
export const RAS_FLIPS: Record<string, [boolean, boolean]> = {
  'right-anterior-superior': [false, false],
  'left-anterior-superior': [true, false],
  'left-posterior-superior': [true, true],
  'scanner-xyz': [false, false],
  '3d-right-handed': [false, false],
  '3d-left-handed': [false, false],
};

/** Cosine of the angle between two axes beyond which they are not at right angles (6-digit direction cosines pass). */
const ORTHOGONAL_COSINE = 1e-4;

/**
 * Row-major 3×4 affine: column c is axes[c], the last column the origin, x and y negated where `flip` says (an
 * exact operation, so distances do not change by a bit).
 */
export function affineFromAxes(axes: number[][], origin: number[], flip: [boolean, boolean], place: FieldPlace | TagPlace,
  originPlace: FieldPlace | TagPlace): Float64Array {
  for (const [c, axis] of axes.entries()) {
    if (axis.length !== 3 || !axis.every(Number.isFinite)) throw fieldError(place, `axis ${c + 1} is not three finite numbers`);
    if (!(Math.hypot(axis[0], axis[1], axis[2]) > 0)) throw fieldError(place, `axis ${c + 1} has zero length (a degenerate direction matrix)`);
  }
  for (let u = 0; u < 3; u++) {
    for (let v = u + 1; v < 3; v++) {
      const a = axes[u], b = axes[v];
      const cosine = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (Math.hypot(a[0], a[1], a[2]) * Math.hypot(b[0], b[1], b[2]));
      if (!(Math.abs(cosine) <= ORTHOGONAL_COSINE)) {
        const what = Math.abs(cosine) > 1 - 1e-12 ? 'are parallel (a degenerate direction matrix)' : `are not at right angles (cosine ${cosine.toPrecision(3)})`;
        throw fieldError(place, `axes ${u + 1} and ${v + 1} ${what}`);
      }
    }
  }
  if (origin.length !== 3 || !origin.every(Number.isFinite)) throw fieldError(originPlace, 'the origin is not three finite numbers');
  const sign = [flip[0] ? -1 : 1, flip[1] ? -1 : 1, 1];
  const affine = new Float64Array(12);
  for (let row = 0; row < 3; row++) {
    for (let c = 0; c < 3; c++) affine[4 * row + c] = sign[row] * axes[c][row];
    affine[4 * row + 3] = sign[row] * origin[row];
  }
  return affine;
}

/** Lengths of the affine's first three columns: the voxel sizes. */
export function axisLengths(affine: Float64Array): [number, number, number] {
  const length = (c: number) => Math.hypot(affine[c], affine[4 + c], affine[8 + c]);
  return [length(0), length(1), length(2)];
}
