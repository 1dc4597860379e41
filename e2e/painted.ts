import type { Page } from '@playwright/test';

/** A text the timeline's canvas painted in its last frame: where (CSS px of the canvas) and how wide. */
export type PaintedText = { text: string; x: number; width: number; align: string };

/**
 * An init script: records the texts of the canvas's last frame (a frame starts with its clearRect),
 * so a test sees what is on screen, not what the marks' list holds.
 */
export function recordLastFrame() {
  const w = window as unknown as { lastFrame: PaintedText[] };
  w.lastFrame = [];
  const proto = CanvasRenderingContext2D.prototype;
  const clearRect = proto.clearRect;
  proto.clearRect = function (this: CanvasRenderingContext2D, ...args) {
    w.lastFrame = [];
    return clearRect.apply(this, args);
  };
  const fillText = proto.fillText;
  proto.fillText = function (this: CanvasRenderingContext2D, ...args) {
    const [text, x] = args;
    w.lastFrame.push({ text: String(text), x, width: this.measureText(String(text)).width, align: this.textAlign });
    return fillText.apply(this, args);
  };
}

export const lastFrame = (page: Page) =>
  page.evaluate(() => (window as unknown as { lastFrame: PaintedText[] }).lastFrame);

/** The axis's labels ("10:28:38", the database's clock), left to right, as [left, right] edges. */
export async function axisLabels(page: Page) {
  return (await lastFrame(page))
    .filter((t) => /^\d\d:\d\d:\d\d(\.\d\d\d)?$/.test(t.text))
    .map((t): [number, number] =>
      t.align === 'center' ? [t.x - t.width / 2, t.x + t.width / 2] : [t.x, t.x + t.width],
    )
    .toSorted((a, b) => a[0] - b[0]);
}

/** From now on, counts the timeline canvas's frames (each starts with its clearRect); `canvasPaints` reads the count. */
export async function countCanvasPaints(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { canvasPaints?: number };
    if (w.canvasPaints === undefined) {
      const proto = CanvasRenderingContext2D.prototype;
      const clearRect = proto.clearRect;
      proto.clearRect = function (this: CanvasRenderingContext2D, ...args) {
        w.canvasPaints = (w.canvasPaints ?? 0) + 1;
        return clearRect.apply(this, args);
      };
    }
    w.canvasPaints = 0;
  });
}

/** The canvas's frames since `countCanvasPaints`, once a frame already asked for has been painted. */
export const canvasPaints = (page: Page) =>
  page.evaluate(async () => {
    await new Promise(requestAnimationFrame);
    return (window as unknown as { canvasPaints?: number }).canvasPaints ?? 0;
  });
