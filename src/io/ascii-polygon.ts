// One face of an ascii OFF or PLY file: a vertex count, then that many indices, checked and collected.
import type { AsciiScanner } from './ascii-numbers.js';
import type { TriangleCollector } from './build.js';

export function readAsciiPolygon(scanner: AsciiScanner, face: number, vertexCount: number, collector: TriangleCollector): void {
  const corners = scanner.integer('a face vertex count');
  if (corners < 3) scanner.fail(`face ${face} has ${corners} vertices (need at least 3)`);
  collector.beginPolygon();
  for (let k = 0; k < corners; k++) {
    if (scanner.atLineEnd()) scanner.fail(`face ${face} lists ${k} of its ${corners} vertex indices`);
    const index = scanner.integer('a vertex index');
    if (index < 0 || index >= vertexCount) {
      scanner.fail(`face ${face} uses vertex index ${index}, outside 0..${vertexCount - 1}`);
    }
    collector.addCorner(index);
  }
  collector.endPolygon();
}
