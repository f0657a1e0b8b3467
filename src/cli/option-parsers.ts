// Option parsers shared by the commands: they turn bad values into commander errors (exit 2).
import { InvalidArgumentError } from 'commander';

import { ValueSyntaxError } from '../core/errors.js';

import type { FileFormat } from '../io/geometry.js';

/** A parser from a lower layer (which throws ValueSyntaxError, knowing nothing of commander) as an option's parser. */
export function optionParser<T>(parse: (text: string) => T): (text: string) => T {
  return (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      if (error instanceof ValueSyntaxError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

export function parseIntegerOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected an integer, got '${value}'`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}, got ${n}`);
    return n;
  };
}

export function parsePositiveNumber(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a positive number, got '${value}'`);
  return n;
}

export function parseFiniteNumber(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got '${value}'`);
  return n;
}

/**
 * Tolerances τ for --nsd / --fscore: a positive number, or several separated by commas; the option may be
 * repeated, each occurrence adding to the list.
 */
export function parseTolerances(value: string, previous: number[] = []): number[] {
  const taus = value.split(',').map((part) => {
    const n = Number(part.trim());
    if (part.trim() === '' || !Number.isFinite(n) || n <= 0) {
      throw new InvalidArgumentError(`expected tolerances τ > 0 (a number, or several separated by commas), got '${value}'`);
    }
    return n;
  });
  return [...previous, ...taus];
}

/** A whole number ≥ 0 or a decimal ≥ 0 (a volume in mm³). */
export function parseNonNegativeNumber(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected a number ≥ 0, got '${value}'`);
  return n;
}

/** A percentile from 0 to 100 (decimals allowed: 99.5). */
export function parsePercentile(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError(`expected a percentile from 0 to 100, got '${value}'`);
  return n;
}

export const FORMATS: FileFormat[] = ['off', 'ply', 'csv', 'xyz', 'stl', 'obj', 'nifti', 'nrrd', 'metaimage', 'dicom-seg', 'las', 'laz', 'pcd', 'e57'];

export function parseColumns(value: string): string[] {
  const columns = value.split(',').map((c) => c.trim());
  if (columns.length < 2 || columns.length > 3 || columns.some((c) => c === '')) {
    throw new InvalidArgumentError(`expected 2 or 3 comma-separated column names or indices, got '${value}'`);
  }
  return columns;
}

/** --devices: `all`, or GPU ordinals separated by commas (an ordinal may repeat: two workers on one device). */
export function parseDevices(value: string): number[] | 'all' {
  const text = value.trim();
  if (text === 'all') return 'all';
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) throw new InvalidArgumentError(`expected 'all' or device ordinals such as 0,1,2, got '${value}'`);
  const ordinals = parts.map(Number);
  if (ordinals.some((d) => d > 1024)) throw new InvalidArgumentError(`expected device ordinals from 0 to 1024, got '${value}'`);
  if (ordinals.length > 1024) throw new InvalidArgumentError(`expected at most 1024 devices, got ${ordinals.length}`);
  return ordinals;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/** A size in bytes: a whole number, or a number with K, M, G or T (powers of 1024; KiB/KB and B accepted). */
export function parseByteSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`expected a size such as 512M or 2G, got '${value}'`);
  const bytes = Math.floor(Number(m[1]) * SIZE_UNITS[m[2].toLowerCase()]);
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InvalidArgumentError(`expected a size of at least 1 byte, got '${value}'`);
  return bytes;
}
