// Reading a generated HTML report back: the data it embeds, as the page's script reads it.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

import type { BatchReportData } from '../src/report/html/batch-html.js';
import type { CompareReportData } from '../src/report/html/compare-report-data.js';

/** The JSON in the page's <script id="xhd-data"> element. */
export function embeddedJson(path: string): unknown {
  const html = readFileSync(path, 'utf8');
  const match = /<script type="application\/json" id="xhd-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error(`${path}: no xhd-data element`);
  return JSON.parse(match[1]);
}

export function reportData(path: string): CompareReportData {
  return embeddedJson(path) as CompareReportData;
}

export function batchReportData(path: string): BatchReportData {
  return embeddedJson(path) as BatchReportData;
}

/** The packed planes inflated into 16-bit words, one plane after another. */
export function packedWords(data: CompareReportData): Uint16Array {
  const bytes = inflateRawSync(Buffer.from(data.packed, 'base64'));
  return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
}
