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

/** A percentile from 0 to 100 (decimals allowed: 99.5). */
export function parsePercentile(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError(`expected a percentile from 0 to 100, got '${value}'`);
  return n;
}

export const FORMATS: FileFormat[] = ['off', 'ply', 'csv', 'xyz', 'stl', 'obj', 'nifti', 'nrrd', 'metaimage', 'las', 'laz', 'pcd', 'e57'];

export function parseColumns(value: string): string[] {
  const columns = value.split(',').map((c) => c.trim());
  if (columns.length < 2 || columns.length > 3 || columns.some((c) => c === '')) {
    throw new InvalidArgumentError(`expected 2 or 3 comma-separated column names or indices, got '${value}'`);
  }
  return columns;
}
