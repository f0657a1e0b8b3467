// The mask report's slice view: three orthogonal slices of the masks' grid (i, j, k fixed in turn), each showing
// both masks' surface voxels in that slice: the coloured set by its distance to the other (the colour bar's
// range), the other in grey. A slider or the mouse wheel scrolls each slice. Voxels are bucketed by slice once
// per axis, so drawing a slice touches only its own voxels.
import type { SliceData } from './report-data.js';

const GREY: [number, number, number] = [120, 128, 145];
const BACKGROUND: [number, number, number] = [21, 23, 28];

interface DecodedSliceSet {
  /** Each surface voxel's (i, j, k). */
  ijk: Uint32Array;
  distances: Float32Array;
  /** Per axis: the voxels ordered by their coordinate on it, and where each slice's run starts (dims + 1). */
  byAxis: { order: Uint32Array; starts: Uint32Array }[];
}

export interface SliceView {
  /** Colours set k (0 = A, 1 = B) by distance over range; the other grey. */
  colour(k: number, range: [number, number]): void;
  /** The slice shown on each axis (i, j, k), and a way to set one (the tests scroll with it). */
  position(): [number, number, number];
  show(axis: number, index: number): void;
  /** Pixels of an axis's canvas that are not background. */
  drawnPixels(axis: number): number;
}

async function inflate(base64: string): Promise<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer();
}

function bucket(ijk: Uint32Array, axis: number, size: number): { order: Uint32Array; starts: Uint32Array } {
  const n = ijk.length / 3;
  const starts = new Uint32Array(size + 1);
  for (let p = 0; p < n; p++) starts[ijk[3 * p + axis] + 1]++;
  for (let s = 0; s < size; s++) starts[s + 1] += starts[s];
  const fill = starts.slice(0, size);
  const order = new Uint32Array(n);
  for (let p = 0; p < n; p++) order[fill[ijk[3 * p + axis]]++] = p;
  return { order, starts };
}

async function decode(data: SliceData): Promise<DecodedSliceSet[]> {
  const bytes = await inflate(data.packed);
  const [nx, ny] = data.dims;
  let at = 0;
  return data.sets.map((set) => {
    const steps = new Uint32Array(bytes.slice(at, at + 4 * set.count));
    at += 4 * set.count;
    const words = new Uint16Array(bytes.slice(at, at + 2 * set.count));
    at += 2 * set.count;
    const ijk = new Uint32Array(3 * set.count);
    const distances = new Float32Array(set.count);
    let voxel = 0;
    for (let p = 0; p < set.count; p++) {
      voxel = (voxel + steps[p]) >>> 0; // increments from the previous voxel, wrapping as they were packed
      ijk[3 * p] = voxel % nx;
      ijk[3 * p + 1] = Math.floor(voxel / nx) % ny;
      ijk[3 * p + 2] = Math.floor(voxel / (nx * ny));
      distances[p] = (words[p] / 65535) * set.distanceScale;
    }
    return { ijk, distances, byAxis: [0, 1, 2].map((axis) => bucket(ijk, axis, data.dims[axis])) };
  });
}

/** For the slice across `axis`: which grid axes run along the canvas's x and y. */
const PLANE: [number, number][] = [[1, 2], [0, 2], [0, 1]];
const AXIS_NAMES = ['i (sagittal)', 'j (coronal)', 'k (axial)'];

export async function createSliceView(host: HTMLElement, data: SliceData, table: number[]): Promise<SliceView> {
  const sets = await decode(data);
  const position: [number, number, number] = [...data.start];
  let coloured = 0, range: [number, number] = [0, 1];
  const canvases = [0, 1, 2].map((axis) => {
    const [u, v] = PLANE[axis];
    const canvas = document.createElement('canvas');
    canvas.width = data.dims[u];
    canvas.height = data.dims[v];
    canvas.style.aspectRatio = `${data.dims[u] * data.spacing[u]} / ${data.dims[v] * data.spacing[v]}`;
    canvas.dataset.axis = String(axis);
    // Drawn with putImageData and read back by drawnPixels: a context kept in memory suits both.
    canvas.getContext('2d', { willReadFrequently: true });
    const slider = document.createElement('input');
    slider.type = 'range';
    slider.min = '0';
    slider.max = String(data.dims[axis] - 1);
    slider.value = String(position[axis]);
    const label = document.createElement('span');
    const figure = document.createElement('figure');
    const caption = document.createElement('figcaption');
    caption.append(AXIS_NAMES[axis], slider, label);
    figure.append(canvas, caption);
    host.append(figure);
    slider.addEventListener('input', () => view.show(axis, Number(slider.value)));
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      view.show(axis, position[axis] + (e.deltaY > 0 ? 1 : -1));
    }, { passive: false });
    return { canvas, slider, label };
  });

  function draw(axis: number): void {
    const { canvas, slider, label } = canvases[axis];
    const [u, v] = PLANE[axis];
    const w = canvas.width, h = canvas.height;
    const ctx = canvas.getContext('2d')!;
    const image = ctx.createImageData(w, h);
    for (let p = 0; p < w * h; p++) image.data.set([...BACKGROUND, 255], 4 * p);
    // The grey set first, so the coloured one is on top where both have a voxel.
    for (const k of [1 - coloured, coloured]) {
      const set = sets[k];
      if (!set) continue;
      const { order, starts } = set.byAxis[axis];
      const span = range[1] - range[0];
      for (let r = starts[position[axis]]; r < starts[position[axis] + 1]; r++) {
        const p = order[r];
        const x = set.ijk[3 * p + u], y = h - 1 - set.ijk[3 * p + v]; // up is up
        let rgb = GREY;
        if (k === coloured) {
          const t = span > 0 ? (set.distances[p] - range[0]) / span : 1;
          const e = 3 * Math.round(255 * Math.min(1, Math.max(0, t)));
          rgb = [table[e], table[e + 1], table[e + 2]];
        }
        image.data.set([...rgb, 255], 4 * (y * w + x));
      }
    }
    ctx.putImageData(image, 0, 0);
    slider.value = String(position[axis]);
    label.textContent = `${position[axis]} / ${data.dims[axis] - 1}`;
  }

  const view: SliceView = {
    colour(k, r) {
      coloured = k;
      range = r;
      for (const axis of [0, 1, 2]) draw(axis);
    },
    position: () => [...position] as [number, number, number],
    show(axis, index) {
      position[axis] = Math.min(data.dims[axis] - 1, Math.max(0, Math.round(index)));
      draw(axis);
    },
    drawnPixels(axis) {
      const { canvas } = canvases[axis];
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i] !== BACKGROUND[0] || pixels[i + 1] !== BACKGROUND[1] || pixels[i + 2] !== BACKGROUND[2]) n++;
      return n;
    },
  };
  return view;
}
