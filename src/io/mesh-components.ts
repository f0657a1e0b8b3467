// A mesh's connected components: triangles that share a vertex index belong to one object (a union-find over
// vertex indices). Components are numbered in the order of their first triangle, and each keeps its triangles
// in file order, so `name#0` is the object of the file's first face.

/** For each component, its triangles' indices in the mesh (ascending). */
export function connectedComponents(triangles: Uint32Array, vertexCount: number): Uint32Array[] {
  const parent = new Int32Array(vertexCount).map((_, i) => i);
  const find = (v: number): number => {
    let root = v;
    while (parent[root] !== root) root = parent[root];
    while (parent[v] !== root) {
      const next = parent[v];
      parent[v] = root;
      v = next;
    }
    return root;
  };
  const join = (x: number, y: number) => {
    const rx = find(x), ry = find(y);
    if (rx !== ry) parent[Math.max(rx, ry)] = Math.min(rx, ry);
  };
  const faces = triangles.length / 3;
  for (let t = 0; t < faces; t++) {
    join(triangles[3 * t], triangles[3 * t + 1]);
    join(triangles[3 * t], triangles[3 * t + 2]);
  }
  // Component number of each root, in the order of the first triangle that reaches it.
  const numberOf = new Map<number, number>();
  const componentOf = new Uint32Array(faces);
  const sizes: number[] = [];
  for (let t = 0; t < faces; t++) {
    const root = find(triangles[3 * t]);
    let c = numberOf.get(root);
    if (c === undefined) {
      c = sizes.length;
      numberOf.set(root, c);
      sizes.push(0);
    }
    componentOf[t] = c;
    sizes[c]++;
  }
  const out = sizes.map((n) => new Uint32Array(n));
  const filled = new Array<number>(sizes.length).fill(0);
  for (let t = 0; t < faces; t++) out[componentOf[t]][filled[componentOf[t]]++] = t;
  return out;
}
