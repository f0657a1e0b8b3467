// LAS variable-length records (VLRs) as the LAS 1.4 specification lays them out: the 54-byte header before a
// payload, and the extra-bytes descriptor (LASF_Spec record 4) for dimensions beyond a point format's own.
// Shared by the LAZ writer and the per-point distance export, which both describe extra dimensions.

/** Bytes of a VLR header or descriptor. */
export const VLR_HEADER_BYTES = 54;
const DESCRIPTOR_BYTES = 192;

/** LAS extra-bytes data types used by xhd. */
export const LAS_UCHAR = 1, LAS_INT64 = 8, LAS_DOUBLE = 10;

/** `text` as ASCII in a fixed-width, zero-padded field (cut to its width). */
export function fixedText(bytes: Uint8Array, at: number, width: number, text: string): void {
  bytes.set(new TextEncoder().encode(text).subarray(0, width), at);
}

/** One VLR: its 54-byte header (reserved 0, user id, record id, payload length, description), then the payload. */
export function vlrBytes(userId: string, recordId: number, description: string, payload: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(VLR_HEADER_BYTES + payload.length);
  const view = new DataView(bytes.buffer);
  fixedText(bytes, 2, 16, userId);
  view.setUint16(18, recordId, true);
  view.setUint16(20, payload.length, true);
  fixedText(bytes, 22, 32, description);
  bytes.set(payload, VLR_HEADER_BYTES);
  return bytes;
}

/** One extra-bytes descriptor (192 bytes): data type, options, name, no-data / min / max, description. */
export function extraBytesDescriptor(name: string, dataType: number, description: string, extra: { noData?: bigint; min?: number; max?: number } = {}): Uint8Array {
  const bytes = new Uint8Array(DESCRIPTOR_BYTES);
  const view = new DataView(bytes.buffer);
  bytes[2] = dataType;
  let options = 0;
  if (extra.noData !== undefined) {
    options |= 1;
    view.setBigInt64(40, extra.noData, true);
  }
  if (extra.min !== undefined && extra.max !== undefined) {
    options |= 2 | 4;
    view.setFloat64(64, extra.min, true);
    view.setFloat64(88, extra.max, true);
  }
  bytes[3] = options;
  fixedText(bytes, 4, 32, name);
  fixedText(bytes, 160, 32, description);
  return bytes;
}

/** The extra-bytes VLR over several descriptors, in record order. */
export function extraBytesVlr(descriptors: Uint8Array[], description: string): Uint8Array {
  const payload = new Uint8Array(DESCRIPTOR_BYTES * descriptors.length);
  descriptors.forEach((d, i) => payload.set(d, DESCRIPTOR_BYTES * i));
  return vlrBytes('LASF_Spec', 4, description, payload);
}
