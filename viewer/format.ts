// Numbers as the page prints them.

/** 6 significant digits, trailing zeros dropped; exponent form when tiny or huge. */
export function short(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const abs = Math.abs(v);
  if (abs < 1e-4 || abs >= 1e9) return v.toExponential(5).replace(/\.?0+e/, 'e');
  const s = v.toPrecision(6);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** A count with thousands separated by commas, as the command line prints counts. */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}
