// Which COPC nodes a --bbox needs: each node's cube (its level's division of the root cube) against the box,
// widened by one scale step so that a point on a cube's face, rounded onto the LAS grid, is never missed;
// the points of the nodes read are then filtered exactly by the box, as any LAS file's are. And what
// xhd info tells of the octree: its depth, nodes and points by level.
import type { CopcInfo } from './copc-info.js';
import type { CopcNode } from './copc-hierarchy.js';

export interface CopcSummary {
  /** The deepest level (the root is 0). */
  depth: number;
  /** Nodes holding points. */
  nodes: number;
  pointsByLevel: number[];
  /** Nodes and points decoded (fewer than all with --bbox). */
  nodesRead: number;
  pointsRead: number;
}

/** The node's cube: min x, y, z then max x, y, z. */
export function nodeCube(info: CopcInfo, node: Pick<CopcNode, 'level' | 'x' | 'y' | 'z'>): number[] {
  const side = (2 * info.halfSize) / 2 ** node.level;
  const min = [node.x, node.y, node.z].map((k, axis) => info.center[axis] - info.halfSize + k * side);
  return [...min, ...min.map((m) => m + side)];
}

/** The nodes whose cube meets the box (min x, y, z then max x, y, z), or every node without one. */
export function selectNodes(nodes: CopcNode[], info: CopcInfo, box: ArrayLike<number> | null, scale: number[]): CopcNode[] {
  if (box === null) return nodes;
  return nodes.filter((node) => {
    const cube = nodeCube(info, node);
    for (let k = 0; k < 3; k++) {
      const slack = Math.abs(scale[k]);
      if (cube[3 + k] + slack < box[k] || cube[k] - slack > box[3 + k]) return false;
    }
    return true;
  });
}

export function copcSummary(nodes: CopcNode[], read: CopcNode[]): CopcSummary {
  const depth = nodes.reduce((d, n) => Math.max(d, n.level), 0);
  const pointsByLevel = new Array<number>(depth + 1).fill(0);
  for (const n of nodes) pointsByLevel[n.level] += n.points;
  return { depth, nodes: nodes.length, pointsByLevel, nodesRead: read.length, pointsRead: read.reduce((s, n) => s + n.points, 0) };
}
