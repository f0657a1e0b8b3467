// The 3D view: the coloured set as points coloured by distance, the other set as a faint overlay, the HD
// witness as a segment with a label; orbit, zoom and pan with three.js's OrbitControls. It renders on
// demand (a change of view, a toggle), so an idle report costs nothing.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

import type { DecodedSet } from './report-data.js';

export const BACKGROUND = 0x15171c;

export interface SceneView {
  renderer: THREE.WebGLRenderer;
  camera: THREE.PerspectiveCamera;
  /** Each set's points (A, B): the tests check which one is coloured. */
  clouds: THREE.Points[];
  controls: OrbitControls;
  render(): void;
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

export function createScene(host: HTMLElement, label: HTMLElement, sets: DecodedSet[], table: number[], radius: number): SceneView {
  const renderer = new THREE.WebGLRenderer({ antialias: false });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
  renderer.setClearColor(BACKGROUND);
  host.prepend(renderer.domElement);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(45, 1, radius * 1e-4, radius * 100);
  const controls = new OrbitControls(camera, renderer.domElement);
  const home = new THREE.Vector3(radius * 1.2, -radius * 1.6, radius * 1.1);
  camera.up.set(0, 0, 1);

  const clouds = sets.map((set) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(set.positions, 3));
    geometry.setAttribute('color', new THREE.BufferAttribute(new Uint8Array(set.positions.length), 3, true));
    geometry.computeBoundingSphere();
    const points = new THREE.Points(geometry, new THREE.PointsMaterial({ size: 2, sizeAttenuation: false, vertexColors: true }));
    points.userData.coloured = points.material; // kept for when this set is the coloured one again
    scene.add(points);
    return points;
  });
  const faint = new THREE.PointsMaterial({ size: 1.5, sizeAttenuation: false, color: 0x9aa3b5, transparent: true, opacity: 0.22, depthWrite: false });

  const witnessGeometry = new THREE.BufferGeometry();
  witnessGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
  const witnessLine = new THREE.Line(witnessGeometry, new THREE.LineBasicMaterial({ color: 0xff3b6b, depthTest: false }));
  const witnessEnds = new THREE.Points(witnessGeometry, new THREE.PointsMaterial({ size: 9, sizeAttenuation: false, color: 0xff3b6b, depthTest: false }));
  witnessLine.renderOrder = witnessEnds.renderOrder = 2;
  scene.add(witnessLine, witnessEnds);
  let witnessMid: THREE.Vector3 | null = null;
  let overlayVisible = true;
  let coloured = 0;

  function resize(): void {
    const w = host.clientWidth, h = host.clientHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(1, h);
    camera.updateProjectionMatrix();
  }

  function placeLabel(): void {
    if (!witnessMid) {
      label.hidden = true;
      return;
    }
    const p = witnessMid.clone().project(camera);
    label.hidden = p.z > 1;
    label.style.left = `${((p.x + 1) / 2) * host.clientWidth}px`;
    label.style.top = `${((1 - p.y) / 2) * host.clientHeight}px`;
  }

  function render(): void {
    renderer.render(scene, camera);
    placeLabel();
  }

  const view: SceneView = {
    renderer, camera, controls, render, clouds,
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
      render();
    },
    setOverlayVisible(visible) {
      overlayVisible = visible;
      clouds.forEach((points, j) => (points.visible = j === coloured || visible));
      render();
    },
    setWitness(from, to, text) {
      witnessLine.visible = witnessEnds.visible = from !== null && to !== null;
      if (from && to) {
        const array = witnessGeometry.getAttribute('position') as THREE.BufferAttribute;
        array.set([...from, ...to]);
        array.needsUpdate = true;
        witnessGeometry.computeBoundingSphere();
        witnessMid = new THREE.Vector3(...from).add(new THREE.Vector3(...to)).multiplyScalar(0.5);
      } else {
        witnessMid = null;
      }
      label.textContent = text;
      render();
    },
    flyTo(point, done) {
      const target = new THREE.Vector3(...point);
      const startTarget = controls.target.clone(), startPosition = camera.position.clone();
      const away = startPosition.clone().sub(startTarget).normalize().multiplyScalar(radius * 0.25);
      const endPosition = target.clone().add(away);
      const started = performance.now();
      const step = () => {
        const f = Math.min(1, (performance.now() - started) / 600);
        const e = f * f * (3 - 2 * f); // smooth start and stop
        controls.target.lerpVectors(startTarget, target, e);
        camera.position.lerpVectors(startPosition, endPosition, e);
        controls.update();
        render();
        if (f < 1) requestAnimationFrame(step);
        else done?.();
      };
      requestAnimationFrame(step);
    },
    resetView() {
      controls.target.set(0, 0, 0);
      camera.position.copy(home);
      controls.update();
      render();
    },
    drawnPixels() {
      render();
      const gl = renderer.getContext();
      const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
      const pixels = new Uint8Array(4 * w * h);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
      const r = BACKGROUND >> 16, g = (BACKGROUND >> 8) & 255, b = BACKGROUND & 255;
      let drawn = 0;
      // A little slack for the clear colour's round trip through linear light.
      for (let i = 0; i < pixels.length; i += 4) if (Math.abs(pixels[i] - r) + Math.abs(pixels[i + 1] - g) + Math.abs(pixels[i + 2] - b) > 12) drawn++;
      return drawn;
    },
  };

  controls.addEventListener('change', render);
  new ResizeObserver(() => {
    resize();
    render();
  }).observe(host);
  resize();
  view.resetView();
  return view;
}
