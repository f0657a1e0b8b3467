// Reads a --frames file: one pose of B per line (7, 12 or 16 numbers, see src/pose.ts), comma or whitespace
// separated, with blank lines, `#` comments and one optional header line of names skipped.
import { readFileSync } from 'node:fs';

import { InputError } from '../core/errors.js';
import { isNumberField, parseNumberFields, poseFromValues, PoseSyntaxError, splitFields, type Pose } from '../core/pose.js';

export interface PoseFrame {
  pose: Pose;
  /** 1-based line of the file it came from. */
  line: number;
}

export function readPoseFile(path: string): PoseFrame[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(path, {}, describeFsError(error));
  }
  return parsePoseText(text, path);
}

export function parsePoseText(text: string, name: string): PoseFrame[] {
  const frames: PoseFrame[] = [];
  let seenData = false;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const fields = splitFields(lines[i].replace(/#.*/, ''));
    if (fields.length === 0) continue;
    // Only the first line may be a header, and only when none of its fields is a number.
    const isHeader = !seenData && fields.every((f) => !isNumberField(f));
    seenData = true;
    if (isHeader) continue;
    try {
      frames.push({ pose: poseFromValues(parseNumberFields(fields)), line: i + 1 });
    } catch (error) {
      if (error instanceof PoseSyntaxError) throw new InputError(name, { line: i + 1 }, error.message);
      throw error;
    }
  }
  if (frames.length === 0) throw new InputError(name, {}, 'has no poses');
  return frames;
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory, expected a frames file';
  return (error as Error).message;
}
