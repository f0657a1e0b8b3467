// Reading a generated HTML report back: the data it embeds, as the page's script reads it.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

import type { CompareReportData } from '../src/report/html/compare-report-data.js';

/** The JSON in the page's <script id="xhd-data"> element. */
export function reportData(path: string): CompareReportData {
  const html = readFileSync(path, 'utf8');
  const match = /<script type="application\/json" id="xhd-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error(`${path}: no xhd-data element`);
  return JSON.parse(match[1]) as CompareReportData;
}

/** The packed planes inflated into 16-bit words, one plane after another. */
export function packedWords(data: CompareReportData): Uint16Array {
  const bytes = inflateRawSync(Buffer.from(data.packed, 'base64'));
  return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
}
