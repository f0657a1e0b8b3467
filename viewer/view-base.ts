// What every 3D view of a report shares: a WebGL renderer in the host element, a camera orbiting the origin
// (the view's centre) with three.js's OrbitControls, rendering on demand (a change of view, a toggle, so an idle
// report costs nothing) and at most once an animation frame, resizing with the host, and a count of drawn pixels
// for the browser tests.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

export const BACKGROUND = 0x15171c;

export interface ViewBase {
  renderer: THREE.WebGLRenderer;
  scene: THREE.Scene;
  camera: THREE.PerspectiveCamera;
  controls: OrbitControls;
  /** Renders the scene now, then calls afterRender (labels placed over the canvas); a requested render is dropped. */
  render(): void;
  /**
   * Renders in the next animation frame, once however often it is asked for before then. A million points take
   * a software renderer a second a frame: the page's setup (camera, colours, witness, size) must draw them once.
   */
  requestRender(): void;
  afterRender: () => void;
  /** The camera back where it started, looking at the centre. */
  resetView(): void;
  /** Flies the camera to look at point from close by (radius / 4), in 0.6 s. */
  flyTo(point: number[], done?: () => void): void;
  /** Pixels of the last frame that differ from the background (read back in the same task as the render). */
  drawnPixels(): number;
}

export function createViewBase(host: HTMLElement, radius: number): ViewBase {
  const renderer = new THREE.WebGLRenderer({ antialias: false });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
  renderer.setClearColor(BACKGROUND);
  host.prepend(renderer.domElement);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(45, 1, radius * 1e-4, radius * 100);
  const controls = new OrbitControls(camera, renderer.domElement);
  const home = new THREE.Vector3(radius * 1.2, -radius * 1.6, radius * 1.1);
  camera.up.set(0, 0, 1);

  let width = -1, height = -1;
  /** Fits the canvas to the host; false when it already fits. */
  function resize(): boolean {
    const w = host.clientWidth, h = host.clientHeight;
    if (w === width && h === height) return false;
    width = w;
    height = h;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(1, h);
    camera.updateProjectionMatrix();
    return true;
  }

  let requested = 0;
  const base: ViewBase = {
    renderer, scene, camera, controls,
    afterRender: () => {},
    render() {
      if (requested) cancelAnimationFrame(requested);
      requested = 0;
      renderer.render(scene, camera);
      base.afterRender();
    },
    requestRender() {
      if (!requested) requested = requestAnimationFrame(() => base.render());
    },
    resetView() {
      controls.target.set(0, 0, 0);
      camera.position.copy(home);
      controls.update();
      base.requestRender();
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
        base.render();
        if (f < 1) requestAnimationFrame(step);
        else done?.();
      };
      requestAnimationFrame(step);
    },
    drawnPixels() {
      base.render();
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

  controls.addEventListener('change', () => base.requestRender());
  // Its first call comes after the first frame, the size unchanged: no second render of the same view then.
  new ResizeObserver(() => {
    if (resize()) base.requestRender();
  }).observe(host);
  resize();
  return base;
}

/** A label element kept beside a point of the view (hidden behind the camera or when there is none). */
export function placeLabel(label: HTMLElement, host: HTMLElement, camera: THREE.Camera, at: THREE.Vector3 | null): void {
  if (!at) {
    label.hidden = true;
    return;
  }
  const p = at.clone().project(camera);
  label.hidden = p.z > 1;
  label.style.left = `${((p.x + 1) / 2) * host.clientWidth}px`;
  label.style.top = `${((1 - p.y) / 2) * host.clientHeight}px`;
}

/** A segment with its two ends marked, drawn over everything (depth test off), hidden until set. */
export function markedSegment(colour: number): { group: THREE.Group; set(from: number[] | null, to: number[] | null): THREE.Vector3 | null } {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
  const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: colour, depthTest: false }));
  const ends = new THREE.Points(geometry, new THREE.PointsMaterial({ size: 9, sizeAttenuation: false, color: colour, depthTest: false }));
  line.renderOrder = ends.renderOrder = 2;
  const group = new THREE.Group();
  group.add(line, ends);
  group.visible = false;
  return {
    group,
    set(from, to) {
      group.visible = from !== null && to !== null;
      if (!from || !to) return null;
      const array = geometry.getAttribute('position') as THREE.BufferAttribute;
      array.set([...from, ...to]);
      array.needsUpdate = true;
      geometry.computeBoundingSphere();
      return new THREE.Vector3(...from).add(new THREE.Vector3(...to)).multiplyScalar(0.5);
    },
  };
}
