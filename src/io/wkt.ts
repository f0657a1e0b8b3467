// Just enough of OGC WKT (WKT1 and WKT2) to report a CRS: its name, its EPSG code, its units, and the
// vertical part of a compound CRS. The text is parsed into a tree of KEYWORD[args] nodes; nothing is
// interpreted beyond those few keywords.

export interface WktNode {
  keyword: string;
  args: (string | number | WktNode)[];
}

/** The parsed tree, or undefined when the text is not well-formed WKT. */
export function parseWkt(text: string): WktNode | undefined {
  let at = 0;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  const node = (depth: number): WktNode | undefined => {
    if (depth > 64) return undefined; // no CRS nests this deep; a hostile text must not overflow the stack
    skipSpace();
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at, at + 64));
    if (!word) return undefined;
    at += word[0].length;
    skipSpace();
    const open = text[at];
    if (open !== '[' && open !== '(') return undefined;
    const close = open === '[' ? ']' : ')';
    at++;
    const args: WktNode['args'] = [];
    for (;;) {
      skipSpace();
      if (text[at] === close) {
        at++;
        return { keyword: word[0].toUpperCase(), args };
      }
      if (args.length > 0) {
        if (text[at] !== ',') return undefined;
        at++;
        skipSpace();
      }
      if (text[at] === '"') {
        let value = '';
        at++;
        for (;;) {
          if (at >= text.length) return undefined;
          if (text[at] === '"') {
            if (text[at + 1] === '"') { value += '"'; at += 2; continue; } // "" is an escaped quote
            at++;
            break;
          }
          value += text[at++];
        }
        args.push(value);
        continue;
      }
      const number = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(at, at + 64));
      if (number) {
        args.push(Number(number[0]));
        at += number[0].length;
        continue;
      }
      // An enumeration word (WKT1's NORTH, EAST) or a nested node.
      const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at, at + 64));
      if (!bare) return undefined;
      const after = text.slice(at + bare[0].length).trimStart()[0];
      if (after === '[' || after === '(') {
        const child = node(depth + 1);
        if (!child) return undefined;
        args.push(child);
      } else {
        args.push(bare[0]);
        at += bare[0].length;
      }
    }
  };
  const root = node(0);
  skipSpace();
  return root && (at >= text.length || text[at] === '\0') ? root : undefined;
}

const children = (node: WktNode) => node.args.filter((a): a is WktNode => typeof a === 'object');

/** The first child node with one of these keywords. */
export function child(node: WktNode, ...keywords: string[]): WktNode | undefined {
  return children(node).find((c) => keywords.includes(c.keyword));
}

/** The node's name (its first string argument). */
export function nameOf(node: WktNode): string | undefined {
  return typeof node.args[0] === 'string' ? node.args[0] : undefined;
}

/** The EPSG code of AUTHORITY["EPSG","32633"] (WKT1) or ID["EPSG",32633] (WKT2) directly under `node`. */
export function epsgOf(node: WktNode): number | undefined {
  const id = child(node, 'AUTHORITY', 'ID');
  if (!id || String(id.args[0]).toUpperCase() !== 'EPSG') return undefined;
  const code = Number(id.args[1]);
  return Number.isInteger(code) && code > 0 ? code : undefined;
}

/** The units of a CRS node: its own UNIT / LENGTHUNIT / ANGLEUNIT, else its first axis's. */
export function unitOf(node: WktNode): string | undefined {
  const unit = child(node, 'UNIT', 'LENGTHUNIT', 'ANGLEUNIT');
  if (unit) return nameOf(unit);
  const system = child(node, 'CS') ? node : undefined;
  const axis = system && child(system, 'AXIS');
  const axisUnit = axis && child(axis, 'UNIT', 'LENGTHUNIT', 'ANGLEUNIT');
  return axisUnit ? nameOf(axisUnit) : undefined;
}

export const COMPOUND = ['COMPD_CS', 'COMPOUNDCRS'];
export const VERTICAL = ['VERT_CS', 'VERTCRS', 'VERTICALCRS'];
export const HORIZONTAL = ['PROJCS', 'GEOGCS', 'GEOCCS', 'PROJCRS', 'PROJECTEDCRS', 'GEOGCRS', 'GEODCRS', 'GEOGRAPHICCRS', 'GEODETICCRS'];
