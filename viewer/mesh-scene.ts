// The distance report's 3D view: A's mesh, B's mesh placed by the chosen frame's pose (faint, so the pair shows
// through it), the closest pair as a segment with its two triangles highlighted, and the farthest pair. Meshes
// are drawn flat-shaded from both sides (meshes need not be closed); point clouds as points. View coordinates
// are A's own minus A's box centre, so float32 holds them finely at survey offsets too.
import * as THREE from 'three';

import type { DecodedMesh, DistanceSceneData } from './report-data.js';
import { createViewBase, markedSegment, placeLabel, type ViewBase } from './view-base.js';

export interface PairPoints {
  a_point: number[];
  b_point: number[];
  a_triangle: number;
  b_triangle: number;
}

export interface MeshView {
  base: ViewBase;
  /** B's drawing (its matrix is the pose in view coordinates): the browser tests read it. */
  b: THREE.Object3D;
  /** Poses B as frame k and shows its pairs (either may be absent). */
  showFrame(k: number, closest: PairPoints | null, farthest: PairPoints | null, label: string): void;
  setBVisible(visible: boolean): void;
  setFarthestVisible(visible: boolean): void;
}

const A_COLOUR = 0x8fa3c8, B_COLOUR = 0xf0a050, CLOSEST = 0xff3b6b, FARTHEST = 0xffd54f;

function drawing(mesh: DecodedMesh, colour: number, opacity: number): THREE.Object3D {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(mesh.positions, 3));
  if (!mesh.indices) {
    return new THREE.Points(geometry, new THREE.PointsMaterial({ size: 2, sizeAttenuation: false, color: colour, transparent: opacity < 1, opacity }));
  }
  geometry.setIndex(new THREE.BufferAttribute(mesh.indices, 1));
  geometry.computeVertexNormals();
  const material = new THREE.MeshPhongMaterial({ color: colour, flatShading: true, side: THREE.DoubleSide, transparent: opacity < 1, opacity, depthWrite: opacity >= 1 });
  return new THREE.Mesh(geometry, material);
}

/** [M | t] applied to p, in double. */
function applyPose(pose: number[], p: number[]): number[] {
  return [0, 1, 2].map((r) => pose[4 * r] * p[0] + pose[4 * r + 1] * p[1] + pose[4 * r + 2] * p[2] + pose[4 * r + 3]);
}

export function createMeshScene(host: HTMLElement, label: HTMLElement, scene: DistanceSceneData, meshes: DecodedMesh[]): MeshView {
  const [a, b] = meshes;
  const halfDiagonal = (k: number) => Math.hypot(...scene.meshes[k].box.step) * 65535 / 2;
  // Wide enough for A and for B at every pose (B's half-diagonal scaled by the pose's largest column, for
  // affine poses that stretch it).
  let radius = Math.max(1e-9, halfDiagonal(0));
  for (const pose of scene.poses) {
    const stretch = Math.max(...[0, 1, 2].map((c) => Math.hypot(pose[c], pose[4 + c], pose[8 + c])));
    const bCentre = applyPose(pose, b.centre).map((v, c) => v - a.centre[c]);
    radius = Math.max(radius, Math.hypot(...bCentre) + stretch * halfDiagonal(1));
  }
  const base = createViewBase(host, radius);
  base.scene.add(new THREE.AmbientLight(0xffffff, 0.9));
  const light = new THREE.DirectionalLight(0xffffff, 1.6);
  base.camera.add(light); // a headlight: every face the camera sees is lit
  base.scene.add(base.camera);

  base.scene.add(drawing(a, A_COLOUR, 1));
  const bDrawing = drawing(b, B_COLOUR, 0.45);
  bDrawing.matrixAutoUpdate = false;
  base.scene.add(bDrawing);

  const highlightGeometry = new THREE.BufferGeometry();
  highlightGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(18), 3));
  const highlight = new THREE.Mesh(highlightGeometry, new THREE.MeshBasicMaterial({ color: CLOSEST, side: THREE.DoubleSide, depthTest: false, transparent: true, opacity: 0.7 }));
  highlight.renderOrder = 1;
  base.scene.add(highlight);
  const closest = markedSegment(CLOSEST), farthest = markedSegment(FARTHEST);
  base.scene.add(closest.group, farthest.group);
  let labelAt: THREE.Vector3 | null = null;
  base.afterRender = () => placeLabel(label, host, base.camera, labelAt);
  let farthestWanted = true, frameHasFarthest = false;

  const toView = (p: number[]) => p.map((v, c) => v - a.centre[c]);
  const view: MeshView = {
    base,
    b: bDrawing,
    showFrame(k, pairClosest, pairFarthest, text) {
      const pose = scene.poses[k];
      // B's vertices are relative to its centre cB: view = M·(q + cB) + t − cA = M·q + (M·cB + t − cA).
      const shift = toView(applyPose(pose, b.centre));
      bDrawing.matrix.set(pose[0], pose[1], pose[2], shift[0], pose[4], pose[5], pose[6], shift[1], pose[8], pose[9], pose[10], shift[2], 0, 0, 0, 1);
      bDrawing.matrixWorldNeedsUpdate = true;
      labelAt = closest.set(pairClosest && toView(pairClosest.a_point), pairClosest && toView(pairClosest.b_point));
      farthest.set(pairFarthest && toView(pairFarthest.a_point), pairFarthest && toView(pairFarthest.b_point));
      frameHasFarthest = pairFarthest !== null;
      farthest.group.visible = frameHasFarthest && farthestWanted;
      const cornersA = pairClosest ? scene.pairTriangles.a[String(pairClosest.a_triangle)] : undefined;
      const cornersB = pairClosest ? scene.pairTriangles.b[String(pairClosest.b_triangle)] : undefined;
      highlight.visible = cornersA?.length === 9 && cornersB?.length === 9;
      if (highlight.visible) {
        const corners = [0, 1, 2].flatMap((j) => toView(cornersA!.slice(3 * j, 3 * j + 3)))
          .concat([0, 1, 2].flatMap((j) => toView(applyPose(pose, cornersB!.slice(3 * j, 3 * j + 3)))));
        const array = highlightGeometry.getAttribute('position') as THREE.BufferAttribute;
        array.set(corners);
        array.needsUpdate = true;
        highlightGeometry.computeBoundingSphere();
      }
      label.textContent = text;
      base.requestRender();
    },
    setBVisible(visible) {
      bDrawing.visible = visible;
      base.requestRender();
    },
    setFarthestVisible(visible) {
      farthestWanted = visible;
      farthest.group.visible = visible && frameHasFarthest;
      base.requestRender();
    },
  };
  base.resetView();
  return view;
}
