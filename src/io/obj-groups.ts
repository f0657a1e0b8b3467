// The `o` and `g` groups of an OBJ file, as join objects: each face statement belongs to the group named
// last before it (faces before any group to `default`), and its polygon of n corners became n - 2 triangles
// in the reader's fan triangulation (obj.ts, build.ts), in file order. Groups of the same name are one
// object. The count is checked against what the reader produced, so the two can never drift apart silently.
import { readFileSync } from 'node:fs';

import { InputError } from '../core/errors.js';

export interface ObjGroup {
  name: string;
  /** Indices of the reader's triangles in this group, ascending. */
  triangles: Uint32Array;
}

export function objGroupOfTriangles(path: string, triangleCount: number): ObjGroup[] {
  const text = readFileSync(path, 'latin1');
  const order: string[] = [];
  const members = new Map<string, number[]>();
  let current = 'default';
  let next = 0;
  const lines = text.split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.trim();
    const head = line.split(/[ \t]/, 1)[0];
    if (head === 'o' || head === 'g') {
      const name = line.slice(1).trim();
      current = name === '' ? 'default' : name;
    } else if (head === 'f') {
      const corners = line.slice(1).trim().split(/[ \t]+/).length;
      let list = members.get(current);
      if (list === undefined) {
        list = [];
        members.set(current, list);
        order.push(current);
      }
      for (let k = 2; k < corners; k++) list.push(next++);
    }
  }
  if (next !== triangleCount) {
    throw new InputError(path, {}, `its face statements make ${next} triangles in groups, but the reader found ${triangleCount}`);
  }
  return order.map((name) => ({ name, triangles: Uint32Array.from(members.get(name)!) }));
}
