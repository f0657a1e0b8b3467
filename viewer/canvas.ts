// A 2D canvas made ready to draw at the screen's pixel density: sized to its CSS box, cleared, the plots' font set.
// Every plot of every report kind starts here.

export interface Canvas2D {
  ctx: CanvasRenderingContext2D;
  /** The drawing area in CSS pixels. */
  w: number;
  h: number;
}

export function prepareCanvas(canvas: HTMLCanvasElement): Canvas2D {
  const scale = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  const ctx = canvas.getContext('2d')!;
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';
  return { ctx, w, h };
}
