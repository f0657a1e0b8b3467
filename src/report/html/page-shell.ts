// The frame every report page shares: head (title, generator, the inline style), a header line, the page's own
// main section, then its data (JSON, made safe inside a script element) and the page's script, inline.
import { PAGE_STYLE } from './page-style.js';
import { escapeHtml, scriptSafe } from './script-safe.js';

export interface PageParts {
  /** Plain text; escaped here. */
  title: string;
  version: string;
  /** HTML of the line under the title (its text escaped by the caller). */
  subtitle: string;
  /** HTML of the page's main element's content. */
  main: string;
  data: unknown;
  /** The page's bundled script (viewer/), inlined as it is. */
  script: string;
}

export function reportPage(p: PageParts): string {
  // The bundle is a script, not JSON: it must not contain "</script" (a test checks), so it goes in as is.
  if (/<\/script/i.test(p.script)) throw new Error('the viewer bundle contains "</script"');
  const title = escapeHtml(p.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="xhd ${escapeHtml(p.version)}">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
  <h1>${title}</h1>
  <p>${p.subtitle}</p>
</header>
<main>
${p.main.replace(/^\n+|\n+$/g, '')}
</main>
<script type="application/json" id="xhd-data">${scriptSafe(JSON.stringify(p.data))}</script>
<script>${p.script}</script>
</body>
</html>
`;
}
