// Reads a DICOM Segmentation (PS3.3 A.51 and C.8.20: Segmentation Storage, 1.2.840.10008.5.1.4.1.1.66.4, and the
// Label Map Segmentation Storage of 2024, 1.2.840.10008.5.1.4.1.1.66.7) into one label volume, as the other mask
// readers give: the dataset parsed by dicom-parser (src/io/dicom-dataset.ts, transfer syntaxes there), the frames
// placed on one regular grid from their functional groups (dicom-seg-geometry.ts), their pixels decoded
// (dicom-seg-pixels.ts), LPS turned into RAS+. A voxel's value is the number of the segment that sets it:
// - BINARY (1 bit): a frame's set pixels are its ReferencedSegmentNumber's.
// - FRACTIONAL (8 bits): read only when every value is 0 or MaximumFractionalValue (binary masks stored as
//   fractions, as some writers do); any value in between is refused naming the frame, since choosing a threshold for
//   a probability or an occupancy would silently change what is measured.
// - LABELMAP (8 or 16 bits): a pixel's value is its segment number, 0 the background.
// A value must be the number of an item of SegmentSequence. Segments may overlap in BINARY and FRACTIONAL files, but
// a label volume holds one segment a voxel: overlapping segments are refused naming both and a frame, unless a label
// was chosen (--label N): its voxels then win where segments overlap, and the others, not compared, keep either.
// Values are uint8 when every segment number is at most 255, else uint16.
import { InputError } from '../core/errors.js';
import type { NiftiDatatypeName, VoxelVolume } from './nifti.js';
import { axisLengths } from './volume-axes.js';
import { fieldError, neededBytes } from './volume-data.js';
import { parseDicomFile, printable, RLE_LOSSLESS, type DicomItem } from './dicom-dataset.js';
import { FunctionalGroups, segGrid } from './dicom-seg-geometry.js';
import { frameReader, type PixelLayout } from './dicom-seg-pixels.js';

export { looksLikeDicom } from './dicom-dataset.js';

const SOP_CLASSES: Record<string, string> = {
  '1.2.840.10008.5.1.4.1.1.66.4': 'Segmentation Storage',
  '1.2.840.10008.5.1.4.1.1.66.7': 'Label Map Segmentation Storage',
};
const BITS: Record<string, number[]> = { BINARY: [1], FRACTIONAL: [8], LABELMAP: [8, 16] };
type SegmentationType = 'BINARY' | 'FRACTIONAL' | 'LABELMAP';

const SEGMENT_SEQUENCE = 'x00620002';
const SEGMENT_IDENTIFICATION = 'x0062000a';
const NUMBER_OF_FRAMES = 'x00280008';
const PER_FRAME = 'x52009230';

export interface DicomSegOptions {
  /** The label asked for (--label): its segment's voxels win where segments overlap. */
  label?: number;
}

export function parseDicomSeg(bytes: Uint8Array, name: string, options: DicomSegOptions = {}): VoxelVolume {
  const { top, transferSyntax, transferSyntaxName } = parseDicomFile(bytes, name);
  checkSopClass(top);
  const type = segmentationType(top);
  const layout = pixelLayout(top, type);
  const read = frameReader(top, layout, transferSyntax === RLE_LOSSLESS); // PixelData's size checked here, before anything is allocated
  const segments = segmentsOf(top);
  const groups = new FunctionalGroups(top, layout.frames, top.place(NUMBER_OF_FRAMES));
  const frameSegments = type === 'LABELMAP' ? undefined : referencedSegments(groups, segments);
  const grid = segGrid(groups, layout.rows, layout.columns);
  const largest = Math.max(...segments.keys());
  const datatype: NiftiDatatypeName = largest <= 255 ? 'uint8' : 'uint16';
  neededBytes(grid.dims, datatype, top.place(PER_FRAME));

  const fill = new LabelFill(name, grid.dims, datatype, options.label);
  const pixels = layout.rows * layout.columns;
  const frame = new Uint16Array(pixels);
  const maxFraction = type === 'FRACTIONAL' ? maximumFraction(top) : 1;
  for (let f = 0; f < layout.frames; f++) {
    read(f, frame);
    const base = grid.sliceOf[f] * pixels;
    const segment = frameSegments?.[f];
    for (let p = 0; p < pixels; p++) {
      const v = frame[p];
      if (v === 0) continue;
      if (segment === undefined) {
        if (!segments.has(v)) throw notASegment(top, f, p, layout.columns, v);
        fill.set(base + p, v, f);
      } else {
        if (v !== maxFraction) throw fractionError(top, f, p, layout.columns, v, maxFraction);
        fill.set(base + p, segment, f);
      }
    }
  }

  const listed = [...segments.entries()].slice(0, 8).map(([n, label]) => (label ? `${n} "${printable(label)}"` : String(n))).join(', ');
  const notes = [
    `DICOM-SEG: ${type}, ${segments.size} segment${segments.size === 1 ? '' : 's'} (${listed}${segments.size > 8 ? ', …' : ''}), `
      + `${layout.frames} frame${layout.frames === 1 ? '' : 's'} on ${grid.dims[2]} slice${grid.dims[2] === 1 ? '' : 's'}, transfer syntax ${transferSyntaxName}; slice step from ${grid.stepNote}`,
    'coordinates turned from DICOM\'s LPS into RAS+ (as NIfTI\'s), which changes no distance',
  ];
  if (grid.emptySlices > 0) {
    notes.push(`${grid.emptySlices} of the ${grid.dims[2]} slices between the lowest and the highest frame have no frame: background there`);
  }
  if (fill.overlaps > 0) notes.push(`segments overlap in ${fill.overlaps} voxels; segment ${options.label}'s are kept where it is one of them (--label ${options.label})`);
  return {
    dims: grid.dims, values: fill.values, datatype, scaling: null, affine: grid.affine, affineSource: 'functional groups',
    spacing: axisLengths(grid.affine), notes,
  };
}

function checkSopClass(top: DicomItem): void {
  const tag = top.has('x00080016') ? 'x00080016' : 'x00020002';
  const uid = top.string(tag);
  if (uid === undefined) throw fieldError(top.place('x00080016'), 'missing: a Segmentation Storage file names its SOP class');
  if (!SOP_CLASSES[uid]) {
    throw fieldError(top.place(tag), `${printable(uid.slice(0, 64))} is not a segmentation (Segmentation Storage 1.2.840.10008.5.1.4.1.1.66.4 `
      + 'or Label Map Segmentation Storage 1.2.840.10008.5.1.4.1.1.66.7 are read)');
  }
}

function segmentationType(top: DicomItem): SegmentationType {
  const type = top.string('x00620001');
  if (type === undefined) throw fieldError(top.place('x00620001'), 'missing, and a segmentation needs it');
  if (!(type in BITS)) throw fieldError(top.place('x00620001'), `"${printable(type.slice(0, 32))}" is none of BINARY, FRACTIONAL and LABELMAP`);
  return type as SegmentationType;
}

function pixelLayout(top: DicomItem, type: SegmentationType): PixelLayout {
  const positive = (tag: string, vr: 'US' | 'IS') => {
    const value = top.count(tag, vr);
    if (value === undefined) throw fieldError(top.place(tag), 'missing, and the frames need it');
    if (value < 1) throw fieldError(top.place(tag), `${value}: must be at least 1`);
    return value;
  };
  const samples = top.count('x00280002', 'US');
  if (samples !== undefined && samples !== 1) throw fieldError(top.place('x00280002'), `${samples}: a segmentation has 1`);
  const rows = positive('x00280010', 'US'), columns = positive('x00280011', 'US'), frames = positive(NUMBER_OF_FRAMES, 'IS');
  const bits = positive('x00280100', 'US');
  if (!BITS[type].includes(bits)) throw fieldError(top.place('x00280100'), `${bits}: a ${type} segmentation has ${BITS[type].join(' or ')}`);
  return { rows, columns, frames, bits: bits as 1 | 8 | 16 };
}

/** Segment numbers and their labels, from SegmentSequence. */
function segmentsOf(top: DicomItem): Map<number, string | undefined> {
  const items = top.items(SEGMENT_SEQUENCE);
  if (items.length === 0) throw fieldError(top.place(SEGMENT_SEQUENCE), 'missing or empty: a segmentation describes its segments');
  const segments = new Map<number, string | undefined>();
  for (const item of items) {
    const number = item.count('x00620004', 'US');
    if (number === undefined || number < 1) throw fieldError(item.place('x00620004'), `${number ?? 'missing'}: segment numbers start at 1`);
    if (segments.has(number)) throw fieldError(item.place('x00620004'), `segment ${number} is described twice`);
    segments.set(number, item.string('x00620005'));
  }
  return segments;
}

/** Each frame's segment (BINARY, FRACTIONAL): its Segment Identification's ReferencedSegmentNumber, a listed one. */
function referencedSegments(groups: FunctionalGroups, segments: Map<number, string | undefined>): number[] {
  return Array.from({ length: groups.frames }, (_, f) => {
    const item = groups.need(f, SEGMENT_IDENTIFICATION, '(0062,000A) SegmentIdentificationSequence');
    const number = item.count('x0062000b', 'US');
    if (number === undefined) throw fieldError(item.place('x0062000b'), `missing (frame ${f + 1}): which segment the frame is`);
    if (!segments.has(number)) throw fieldError(item.place('x0062000b'), `frame ${f + 1} is segment ${number}, which no item of (0062,0002) SegmentSequence describes`);
    return number;
  });
}

function maximumFraction(top: DicomItem): number {
  const value = top.count('x0062000e', 'US');
  if (value === undefined || value < 1 || value > 255) throw fieldError(top.place('x0062000e'), `${value ?? 'missing'}: a FRACTIONAL segmentation needs 1 to 255`);
  return value;
}

function notASegment(top: DicomItem, frame: number, pixel: number, columns: number, value: number): InputError {
  return fieldError(top.place('x7fe00010'), `frame ${frame + 1}, row ${Math.floor(pixel / columns)} column ${pixel % columns}: `
    + `value ${value} is no segment of (0062,0002) SegmentSequence`);
}

function fractionError(top: DicomItem, frame: number, pixel: number, columns: number, value: number, max: number): InputError {
  return fieldError(top.place('x7fe00010'), `frame ${frame + 1}, row ${Math.floor(pixel / columns)} column ${pixel % columns}: `
    + `FRACTIONAL value ${value} lies between 0 and MaximumFractionalValue ${max}; xhd reads fractional segmentations whose values are all 0 or ${max}, `
    + 'and chooses no threshold (make the mask binary first)');
}

/** The label volume being filled, frame by frame, with overlapping segments refused or resolved for the chosen label. */
class LabelFill {
  readonly values: Uint8Array | Uint16Array;
  overlaps = 0;

  constructor(private readonly name: string, private readonly dims: [number, number, number], datatype: NiftiDatatypeName,
    private readonly chosen: number | undefined) {
    const count = dims[0] * dims[1] * dims[2];
    this.values = datatype === 'uint8' ? new Uint8Array(count) : new Uint16Array(count);
  }

  set(index: number, segment: number, frame: number): void {
    const current = this.values[index];
    if (current === 0 || current === segment) {
      this.values[index] = segment;
      return;
    }
    if (this.chosen === undefined) {
      const [nx, ny] = this.dims;
      const at = `(${index % nx}, ${Math.floor(index / nx) % ny}, ${Math.floor(index / (nx * ny))})`;
      throw new InputError(this.name, {}, `segments ${current} and ${segment} overlap: frame ${frame + 1} sets voxel ${at}, which segment ${current} `
        + 'already holds; a label volume holds one segment a voxel, so choose one with --label');
    }
    this.overlaps++;
    if (segment === this.chosen) this.values[index] = segment;
  }
}
