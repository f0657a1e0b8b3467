// The byte-level mutations the fuzzers share (fuzz-readers.test.ts, fuzz-volumes.test.ts): each takes the bytes and
// the case's seeded random numbers, and returns new bytes (or a view of the old).

export const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)];

/** A position in the bytes (0 for none). */
export const at = (bytes: Uint8Array, random: () => number) => Math.floor(random() * Math.max(1, bytes.length));

/** The bytes with `cut` of them at `where` replaced by `insert`. */
export const splice = (bytes: Uint8Array, where: number, cut: number, insert: Uint8Array) =>
  Uint8Array.from([...bytes.subarray(0, where), ...insert, ...bytes.subarray(Math.min(bytes.length, where + cut))]);

export const garbage = (random: () => number, length: number) => Uint8Array.from({ length }, () => Math.floor(random() * 256));

/** One to eight bits flipped anywhere. */
export function flipBytes(bytes: Uint8Array, random: () => number): Uint8Array {
  const out = Uint8Array.from(bytes);
  for (let k = 0; k < 1 + Math.floor(random() * 8); k++) if (out.length) out[at(out, random)] ^= 1 << Math.floor(random() * 8);
  return out;
}

/** Cut anywhere. */
export const truncate = (bytes: Uint8Array, random: () => number) => bytes.subarray(0, at(bytes, random));

/** Up to three bytes anywhere replaced by 1 to 16 random ones. */
export const spliceGarbage = (bytes: Uint8Array, random: () => number) =>
  splice(bytes, at(bytes, random), Math.floor(random() * 4), garbage(random, 1 + Math.floor(random() * 16)));
