// Text from the inputs, made safe to print: error messages quote header lines and tokens as the file holds them,
// and a damaged file's bytes may be control characters. A line feed would break the one-line contract of an input
// error, a carriage return or a vertical tab would overwrite or split the line on a terminal, and ESC (C0) or CSI
// (C1) would start an escape sequence that the terminal runs. Found by mutating headers of NRRD, MetaImage and PLY
// files (stop 55).

/**
 * `text` with every C0 control, DEL and C1 control shown as '?'; line feeds kept where asked (the native library's
 * messages add lines that say the likely cause and the fix).
 */
export function printable(text: string, keepLineFeeds = false): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (keepLineFeeds && c === '\n' ? c : '?'));
}
