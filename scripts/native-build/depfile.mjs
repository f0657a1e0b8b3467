// Reads the prerequisites out of a make rule written by the compiler (-MMD -MP -MF): the first rule's
// right-hand side, with line continuations joined and escaped spaces kept. The phony rules that -MP adds
// after it (one per header, so that a deleted header does not break make) are not needed here.
import { readFileSync } from 'node:fs';

// The prerequisites of the first rule in `text`, or null when it holds no rule.
export function parseDepfile(text) {
  const joined = text.replace(/\\\r?\n/g, ' ');
  const firstRule = joined.split(/\r?\n/).find((line) => line.trim() !== '');
  if (firstRule === undefined) return null;
  // The target ends at the first ':' followed by whitespace or the end of the line ("c:/..." never
  // occurs on the Linux hosts this builds on, but a colon inside a path is not followed by a space).
  const colon = firstRule.search(/:(\s|$)/);
  if (colon < 0) return null;
  const deps = [];
  let current = '';
  const rest = firstRule.slice(colon + 1);
  for (let i = 0; i < rest.length; i += 1) {
    const c = rest[i];
    if (c === '\\' && (rest[i + 1] === ' ' || rest[i + 1] === '#')) {
      current += rest[i + 1];
      i += 1;
    } else if (c === '$' && rest[i + 1] === '$') {
      current += '$';
      i += 1;
    } else if (c === ' ' || c === '\t') {
      if (current !== '') deps.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (current !== '') deps.push(current);
  return deps;
}

// The prerequisites listed in the depfile at `path`, or null when it is missing or holds no rule.
export function readDepfile(path) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  return parseDepfile(text);
}
