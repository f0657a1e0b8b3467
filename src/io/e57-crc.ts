// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum E57 stores at the end of every page.
// Slicing by 8: eight 256-entry tables let the loop take a 32-bit word and 4 more bytes a step, several
// times faster in JavaScript than a byte at a time (E57 files are checksummed whole, page by page).

const POLYNOMIAL = 0x82f63b78;

/** tables[k][b]: the CRC of byte b followed by k zero bytes. */
const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let b = 0; b < 256; b++) {
    let c = b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    tables[0][b] = c >>> 0;
  }
  for (let b = 0; b < 256; b++) {
    for (let k = 1; k < 8; k++) tables[k][b] = (tables[k - 1][b] >>> 8) ^ tables[0][tables[k - 1][b] & 0xff];
  }
  return tables;
})();

/** The CRC-32C of bytes[start, end). */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let crc = 0xffffffff;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const lo = (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)) ^ crc;
    crc = t7[lo & 0xff] ^ t6[(lo >>> 8) & 0xff] ^ t5[(lo >>> 16) & 0xff] ^ t4[lo >>> 24] ^
      t3[bytes[i + 4]] ^ t2[bytes[i + 5]] ^ t1[bytes[i + 6]] ^ t0[bytes[i + 7]];
  }
  for (; i < end; i++) crc = (crc >>> 8) ^ t0[(crc ^ bytes[i]) & 0xff];
  return (crc ^ 0xffffffff) >>> 0;
}
