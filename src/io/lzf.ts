// LZF decompression (the format of liblzf, which PCL's binary_compressed PCD files use), written from the
// format's description: a control byte below 32 starts a run of that many plus one literal bytes; any other
// starts a back reference of (control >> 5) + 2 bytes (7 meaning a length byte follows) to an offset of
// ((control & 31) << 8) + the next byte + 1 behind. Every read and write is bounds-checked.

/** Decompresses `input` into exactly `size` bytes; returns an error message for damaged data instead. */
export function lzfDecompress(input: Uint8Array, size: number): Uint8Array | string {
  const out = new Uint8Array(size);
  let ip = 0, op = 0;
  while (ip < input.length) {
    const token = ip;
    const control = input[ip++];
    if (control < 32) {
      const length = control + 1;
      if (ip + length > input.length) return `a literal run at compressed byte ${token} runs past the compressed data`;
      if (op + length > size) return `the data decompresses to more than the ${size} bytes declared`;
      out.set(input.subarray(ip, ip + length), op);
      ip += length;
      op += length;
      continue;
    }
    let length = control >> 5;
    if (length === 7) {
      if (ip >= input.length) return 'the compressed data ends inside a back reference';
      length += input[ip++];
    }
    if (ip >= input.length) return 'the compressed data ends inside a back reference';
    const from = op - ((control & 0x1f) << 8) - input[ip++] - 1;
    length += 2;
    if (from < 0) return `a back reference at compressed byte ${token} points before the start of the data`;
    if (op + length > size) return `the data decompresses to more than the ${size} bytes declared`;
    // Byte by byte: a reference may overlap what it writes (a repeated pattern).
    for (let k = 0; k < length; k++) out[op + k] = out[from + k];
    op += length;
  }
  return op === size ? out : `the data decompresses to ${op} bytes, not the ${size} declared`;
}

/** The most an LZF stream can grow: 3 bytes of back reference give at most 264 bytes. */
export const LZF_MAX_RATIO = 88;
