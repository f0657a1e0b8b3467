// Poses of B for `xhd distance`: the --transform-b, --translate and --rotate values and the rows of a frames
// file, each turned into the 12 entries of the 3×4 matrix [M | t] (row by row) that MeshDistance.query takes.
// The library applies it to every vertex of B as float(((m0*x + m1*y) + m2*z) + t), row by row.
import { ValueSyntaxError } from './errors.js';

/** A rigid (or any affine) pose: the 12 entries of the 3×4 matrix [M | t], row by row. */
export type Pose = Float64Array;

export const IDENTITY_POSE: Pose = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0);

/** A value that is not a pose; callers add where it came from (an option, a file and line). */
export class PoseSyntaxError extends ValueSyntaxError {}

export type Vector3 = [number, number, number];
/** A 3×3 matrix, row by row. */
export type Matrix3 = [number, number, number, number, number, number, number, number, number];

const IDENTITY3: Matrix3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/** Plain decimal numbers only: Number() would also take '', '0x1f' and 'Infinity'. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Whether a field reads as a number (a frames file's header has none that do). */
export function isNumberField(field: string): boolean {
  return DECIMAL.test(field);
}

/** The fields of a line: separated by commas or whitespace (commas may have spaces around them). */
export function splitFields(text: string): string[] {
  const trimmed = text.trim();
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*|\s+/);
}

export function parseNumberFields(fields: string[]): number[] {
  return fields.map((field) => {
    if (field === '') throw new PoseSyntaxError('empty field between two commas');
    if (!DECIMAL.test(field)) throw new PoseSyntaxError(`'${field}' is not a number`);
    const value = Number(field);
    if (!Number.isFinite(value)) throw new PoseSyntaxError(`'${field}' is too large`);
    return value;
  });
}

function parseCount(text: string, count: number, what: string): number[] {
  const values = parseNumberFields(splitFields(text));
  if (values.length !== count) throw new PoseSyntaxError(`expected ${what}, found ${values.length} number${values.length === 1 ? '' : 's'}`);
  return values;
}

/** p' = R p + t as [R | t]. */
export function composePose(rotation: Matrix3 = IDENTITY3, translation: Vector3 = [0, 0, 0]): Pose {
  const r = rotation, t = translation;
  return Float64Array.of(r[0], r[1], r[2], t[0], r[3], r[4], r[5], t[1], r[6], r[7], r[8], t[2]);
}

/** 12 numbers: the 3×4 matrix [M | t], row by row, used as given. */
export function poseFromRows3x4(values: number[]): Pose {
  if (values.length !== 12) throw new PoseSyntaxError(`expected 12 numbers, found ${values.length}`);
  return Float64Array.from(values);
}

/** 16 numbers: a 4×4 matrix, row by row, whose last row must be 0,0,0,1 (an affine transform). */
export function poseFromMatrix4(values: number[]): Pose {
  if (values.length !== 16) throw new PoseSyntaxError(`expected 16 numbers, found ${values.length}`);
  const last = values.slice(12);
  if (last[0] !== 0 || last[1] !== 0 || last[2] !== 0 || last[3] !== 1) {
    throw new PoseSyntaxError(`the last row of a 4×4 matrix must be 0,0,0,1, found ${last.join(',')}`);
  }
  return Float64Array.from(values.slice(0, 12));
}

/** Within this of 1, a quaternion's norm is taken for rounding in the file and divided out. */
export const QUATERNION_NORM_TOLERANCE = 1e-6;

/** 7 numbers tx,ty,tz,qw,qx,qy,qz: the rotation of the unit quaternion q, then the translation. */
export function poseFromQuaternion(values: number[]): Pose {
  if (values.length !== 7) throw new PoseSyntaxError(`expected 7 numbers, found ${values.length}`);
  const [tx, ty, tz] = values;
  let [w, x, y, z] = values.slice(3);
  const norm = Math.hypot(w, x, y, z);
  if (!(Math.abs(norm - 1) <= QUATERNION_NORM_TOLERANCE)) {
    throw new PoseSyntaxError(`the quaternion qw,qx,qy,qz has norm ${norm}, expected 1 (within ${QUATERNION_NORM_TOLERANCE.toExponential()})`);
  }
  if (norm !== 1) [w, x, y, z] = [w / norm, x / norm, y / norm, z / norm];
  const rotation: Matrix3 = [
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ];
  return composePose(rotation, [tx, ty, tz]);
}

/** A row of a frames file: 7 (translation and quaternion), 12 (3×4) or 16 (4×4) numbers. */
export function poseFromValues(values: number[]): Pose {
  switch (values.length) {
    case 7: return poseFromQuaternion(values);
    case 12: return poseFromRows3x4(values);
    case 16: return poseFromMatrix4(values);
    default: throw new PoseSyntaxError(`expected 7, 12 or 16 numbers, found ${values.length}`);
  }
}

/** cos and sin of an angle in degrees; multiples of 90° are exact (Math.cos(π/2) is not 0). */
export function cosSinDegrees(degrees: number): [number, number] {
  const reduced = degrees % 360; // exact in floating point
  if (reduced % 90 === 0) {
    const quarter = (((reduced / 90) % 4) + 4) % 4;
    return ([[1, 0], [0, 1], [-1, 0], [0, -1]] as [number, number][])[quarter];
  }
  const radians = (reduced * Math.PI) / 180;
  return [Math.cos(radians), Math.sin(radians)];
}

/** The right-handed rotation by `degrees` about the axis through the origin (Rodrigues' formula). */
export function rotationAbout(axis: Vector3, degrees: number): Matrix3 {
  const length = Math.hypot(axis[0], axis[1], axis[2]);
  if (!(length > 0) || !Number.isFinite(length)) throw new PoseSyntaxError('the rotation axis must be a non-zero vector');
  const [x, y, z] = length === 1 ? axis : [axis[0] / length, axis[1] / length, axis[2] / length];
  const [c, s] = cosSinDegrees(degrees);
  const k = 1 - c;
  return [
    c + k * x * x, k * x * y - s * z, k * x * z + s * y,
    k * x * y + s * z, c + k * y * y, k * y * z - s * x,
    k * x * z - s * y, k * y * z + s * x, c + k * z * z,
  ];
}

const NAMED_AXES: Record<string, Vector3> = { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] };

/** --rotate: `axis,deg` with axis x, y or z, or `ax,ay,az,deg`. */
export function parseRotation(text: string): Matrix3 {
  const fields = splitFields(text);
  const named = NAMED_AXES[fields[0]?.toLowerCase()];
  if (named) {
    if (fields.length !== 2) throw new PoseSyntaxError('expected axis,degrees (axis x, y or z) or ax,ay,az,degrees');
    return rotationAbout(named, parseNumberFields(fields.slice(1))[0]);
  }
  if (fields.length === 2 && !isNumberField(fields[0])) {
    throw new PoseSyntaxError(`unknown axis '${fields[0]}': use x, y, z or a vector ax,ay,az`);
  }
  const values = parseNumberFields(fields);
  if (values.length !== 4) throw new PoseSyntaxError(`expected axis,degrees (axis x, y or z) or ax,ay,az,degrees, found ${values.length} numbers`);
  return rotationAbout([values[0], values[1], values[2]], values[3]);
}

/** --translate: x,y,z. */
export function parseTranslation(text: string): Vector3 {
  const [x, y, z] = parseCount(text, 3, '3 numbers x,y,z');
  return [x, y, z];
}

/** --transform-b: a 4×4 matrix as 16 numbers, row by row. */
export function parseMatrix4(text: string): Pose {
  return poseFromMatrix4(parseCount(text, 16, '16 numbers (a 4×4 matrix, row by row)'));
}

export function isIdentityPose(pose: Pose): boolean {
  return composePose().every((v, i) => pose[i] === v);
}
