// The report page's style sheet: dark around the 3D view (points read best on dark), plain elsewhere.
export const PAGE_STYLE = `
:root { color-scheme: dark; --bg: #101216; --panel: #1b1e25; --text: #dde1ea; --muted: #98a0b0; --accent: #ff3b6b; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--text); }
header { padding: 12px 20px; border-bottom: 1px solid #2a2e38; }
header h1 { margin: 0; font-size: 18px; }
header p { margin: 2px 0 0; color: var(--muted); }
main { display: grid; grid-template-columns: minmax(0, 1fr) 360px; gap: 16px; padding: 16px 20px; }
section { background: var(--panel); border-radius: 8px; padding: 12px 14px; }
h2 { font-size: 15px; margin: 0 0 8px; }
#view { position: relative; height: 62vh; min-height: 360px; border-radius: 6px; overflow: hidden; background: #15171c; }
#view canvas { width: 100%; height: 100%; display: block; }
#witness-label { position: absolute; transform: translate(8px, -50%); pointer-events: none; color: #fff; background: rgba(255, 59, 107, 0.85);
  padding: 1px 6px; border-radius: 4px; font-size: 12px; white-space: nowrap; }
#controls { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin-top: 8px; color: var(--muted); }
button { font: inherit; color: var(--text); background: #2a2f3a; border: 1px solid #3a4150; border-radius: 5px; padding: 3px 10px; cursor: pointer; }
button:hover { background: #353c4a; }
button:disabled { opacity: 0.5; cursor: default; }
#legend-hd { font-size: 20px; font-weight: 600; }
#colour-bar { width: 100%; height: 14px; image-rendering: pixelated; border-radius: 3px; display: block; margin-top: 6px; }
.bar-ends { display: flex; justify-content: space-between; color: var(--muted); font-size: 12px; }
#shown { color: var(--muted); font-size: 12px; margin-top: 6px; }
#regions { padding-left: 22px; margin: 0; }
#regions li { margin: 3px 0; }
#regions button { text-align: left; width: 100%; font-size: 12px; }
.plots { grid-column: 1 / -1; display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.plots canvas { width: 100%; height: 220px; display: block; }
.wide { grid-column: 1 / -1; }
table { border-collapse: collapse; font: 12px/1.4 ui-monospace, monospace; width: 100%; }
td { padding: 1px 8px; border-bottom: 1px solid #272b34; vertical-align: top; word-break: break-all; }
td:first-child { color: var(--muted); white-space: nowrap; word-break: normal; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; font-size: 13px; }
dt { color: var(--muted); }
dd { margin: 0; word-break: break-all; }
.numbers { max-height: 420px; overflow: auto; }
#slices { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; }
#slices figure { margin: 0; }
#slices canvas { width: 100%; image-rendering: pixelated; background: #15171c; border-radius: 4px; display: block; }
#slices figcaption { display: flex; gap: 8px; align-items: center; color: var(--muted); font-size: 12px; margin-top: 4px; }
#slices input[type=range] { flex: 1; }
@media (max-width: 900px) { main, .plots { grid-template-columns: 1fr; } }
`;
