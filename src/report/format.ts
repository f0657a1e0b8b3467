// Number formatting shared by the human-readable reports.

/** A distance with 10 significant digits, trailing zeros dropped. */
export function formatDistance(d: number): string {
  return formatSignificant(d, 10);
}

/**
 * A coordinate: 7 significant digits, and at least 4 decimals for large values, so survey coordinates
 * (x ≈ 500000, y ≈ 4200000) keep their tenths of a millimetre instead of being rounded to metres.
 */
export function formatCoordinate(v: number): string {
  const integerDigits = Math.abs(v) >= 1 ? Math.floor(Math.log10(Math.abs(v))) + 1 : 0;
  return formatSignificant(v, Math.min(15, Math.max(7, integerDigits + 4)));
}

/** v with `digits` significant digits, trailing zeros dropped; exponent form when tiny or huge. */
export function formatSignificant(v: number, digits: number): string {
  if (v === 0) return '0';
  const abs = Math.abs(v);
  if (abs < 1e-4 || abs >= 1e9) return v.toExponential(digits - 1).replace(/\.?0+e/, 'e');
  return trimZeros(v.toPrecision(digits));
}

export function formatPoint(p: number[]): string {
  return `(${p.map(formatCoordinate).join(', ')})`;
}

export { countOf, formatBytes, formatCount } from '../core/counts.js';

export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 10000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

