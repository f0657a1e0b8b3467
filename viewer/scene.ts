// The compare report's 3D view: the coloured set as points coloured by distance, the other set as a faint
// overlay, the HD witness as a segment with a label; orbit, zoom and pan as every report view (view-base.ts).
import * as THREE from 'three';
import type { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

import type { DecodedSet } from './report-data.js';
import { createViewBase, markedSegment, placeLabel, type ViewBase } from './view-base.js';

export { BACKGROUND } from './view-base.js';

export interface SceneView {
  renderer: THREE.WebGLRenderer;
  camera: THREE.PerspectiveCamera;
  /** Each set's points (A, B): the tests check which one is coloured. */
  clouds: THREE.Points[];
  controls: OrbitControls;
  render(): void;
  /** One render in the next animation frame, however often asked for before then (view-base.ts). */
  requestRender(): void;
  /** Colours set k by distance with the table over range and shows the other faintly. */
  showColoured(k: number, range: [number, number]): void;
  setOverlayVisible(visible: boolean): void;
  /** Shows direction k's witness segment (view coordinates) with its label text. */
  setWitness(from: number[] | null, to: number[] | null, label: string): void;
  flyTo(point: number[], done?: () => void): void;
  resetView(): void;
  /** Pixels of the last frame that differ from the background (read back in the same task as the render). */
  drawnPixels(): number;
}

/**
 * The view, built while the points decode: the renderer and its shader programs are made first, so that the GPU
 * compiles them while this thread inflates and unpacks the points (a million take it a few hundred ms each).
 */
export async function createScene(host: HTMLElement, label: HTMLElement, decoding: Promise<DecodedSet[]>, table: number[], radius: number): Promise<SceneView> {
  const base = createViewBase(host, radius);
  const { scene } = base;
  const colouredMaterial = () => new THREE.PointsMaterial({ size: 2, sizeAttenuation: false, vertexColors: true });
  const faint = new THREE.PointsMaterial({ size: 1.5, sizeAttenuation: false, color: 0x9aa3b5, transparent: true, opacity: 0.22, depthWrite: false });
  const witness = markedSegment(0xff3b6b);
  precompile(base, [colouredMaterial(), faint], witness.group);

  const sets = await decoding;
  const clouds = sets.map((set) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(set.positions, 3));
    geometry.setAttribute('color', new THREE.BufferAttribute(new Uint8Array(set.positions.length), 3, true));
    // Every point lies in the packing box, centred on the view's origin: its half-diagonal bounds them, without
    // a pass over a million points (three.js wants the sphere only to cull).
    geometry.boundingSphere = new THREE.Sphere(new THREE.Vector3(), radius);
    const points = new THREE.Points(geometry, colouredMaterial());
    points.userData.coloured = points.material; // kept for when this set is the coloured one again
    scene.add(points);
    return points;
  });

  scene.add(witness.group);
  let witnessMid: THREE.Vector3 | null = null;
  base.afterRender = () => placeLabel(label, host, base.camera, witnessMid);
  let overlayVisible = true;
  let coloured = 0;

  const view: SceneView = {
    renderer: base.renderer, camera: base.camera, controls: base.controls, render: () => base.render(), requestRender: () => base.requestRender(), clouds,
    flyTo: base.flyTo, resetView: base.resetView, drawnPixels: base.drawnPixels,
    showColoured(k, range) {
      coloured = k;
      clouds.forEach((points, j) => {
        const distances = sets[j].distances;
        if (j === k && distances) {
          const colour = points.geometry.getAttribute('color') as THREE.BufferAttribute;
          const out = colour.array as Uint8Array;
          const lo = range[0], span = range[1] - range[0];
          for (let i = 0; i < distances.length; i++) {
            const t = span > 0 ? (distances[i] - lo) / span : 1;
            const e = 3 * Math.round(255 * (t > 0 ? (t < 1 ? t : 1) : 0));
            out[3 * i] = table[e];
            out[3 * i + 1] = table[e + 1];
            out[3 * i + 2] = table[e + 2];
          }
          colour.needsUpdate = true;
          points.material = points.userData.coloured;
          points.visible = true;
        } else {
          points.material = faint;
          points.visible = overlayVisible;
        }
      });
      base.requestRender();
    },
    setOverlayVisible(visible) {
      overlayVisible = visible;
      clouds.forEach((points, j) => (points.visible = j === coloured || visible));
      base.requestRender();
    },
    setWitness(from, to, text) {
      witnessMid = witness.set(from, to);
      label.textContent = text;
      base.requestRender();
    },
  };
  view.resetView();
  return view;
}

/**
 * Starts compiling the programs of these point materials (on a point with the clouds' attributes) and of the
 * witness: three.js reuses a program for every material of the same kind, and asks whether it compiled only
 * when it first draws with it.
 */
function precompile(base: ViewBase, materials: THREE.PointsMaterial[], witness: THREE.Object3D): void {
  const scene = new THREE.Scene();
  for (const material of materials) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3), 3));
    geometry.setAttribute('color', new THREE.BufferAttribute(new Uint8Array(3), 3, true));
    scene.add(new THREE.Points(geometry, material));
  }
  scene.add(witness.clone());
  base.renderer.compile(scene, base.camera);
}
