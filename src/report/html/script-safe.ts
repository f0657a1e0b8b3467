// Text that goes into a report page: data inside a <script> element, and text between tags.

/** Text that is safe inside a <script> element: no "</script", "<!--" or line separators break out of it. */
export function scriptSafe(text: string): string {
  return text.replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
