import { expect, test } from './fixtures';
import { WHOLE_WALKTHROUGH_TIMEOUT, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';
import { stepCountOf } from './steps';

const MIN_PX = 18;

/**
 * Records every text the page paints on a canvas, with its size in CSS px as it lands on screen:
 * the font's px × the context's transform × the canvas's CSS width over its backing width.
 */
function recordCanvasText() {
  const sizes = new Map<string, number>();
  (window as unknown as { canvasText: Map<string, number> }).canvasText = sizes;
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (this: CanvasRenderingContext2D, ...args) {
    const px = Number(/(\d+(?:\.\d+)?)px/.exec(this.font)?.[1] ?? Number.NaN);
    const transform = this.getTransform();
    const cssPerBacking = this.canvas.getBoundingClientRect().height / this.canvas.height;
    sizes.set(String(args[0]), px * Math.hypot(transform.c, transform.d) * cssPerBacking);
    return fillText.apply(this, args);
  };
}

test('in presenter mode at 1280×720 the timeline is the largest thing on screen, its labels are 18 px or more, and nothing scrolls', async ({
  page,
  lab,
}) => {
  test.setTimeout(120_000);
  lab('fenced'); // reset when the test ends
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.addInitScript(recordCanvasText);
  const presenter = new PresenterPage(page, 'fenced');
  // The whole walkthrough for real (the deep link's → runs every step up to the last): two lanes,
  // accepted writes, a freeze, a belief and the stale write; the longest narrations.
  const last = stepCountOf('fenced');
  await page.goto(`/labs/fenced/present?step=${last}`);
  await expect(presenter.runSteps).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  await page.keyboard.press('ArrowRight');
  await presenter.expectStep(last, "The row holds B's value", { timeout: WHOLE_WALKTHROUGH_TIMEOUT });
  await expect(presenter.writeMark('A', 'rejected')).toHaveCount(1, { timeout: WORKER_STEP_TIMEOUT });

  // Lane names: DOM text, at their computed size times any CSS zoom above them.
  const laneNames = await page
    .getByTestId('lane-names')
    .locator('[data-lane-name]')
    .evaluateAll((names) =>
      names.map((name) => {
        let zoom = 1;
        for (let e: Element | null = name; e; e = e.parentElement) zoom *= Number(getComputedStyle(e).zoom) || 1;
        return { text: name.textContent, px: Number.parseFloat(getComputedStyle(name).fontSize) * zoom };
      }),
    );
  expect(laneNames.map((n) => n.text)).toEqual(['A', 'B', 'database']);
  for (const name of laneNames) expect(name.px, `lane name ${name.text}`).toBeGreaterThanOrEqual(MIN_PX);

  // The canvas's token and write labels, as painted.
  const painted = async () =>
    page.evaluate(() => [...(window as unknown as { canvasText: Map<string, number> }).canvasText.entries()]);
  await expect.poll(async () => (await painted()).some(([text]) => /^token \d+$/.test(text))).toBe(true);
  const isWriteLabel = (text: string) => /^[AB]-\d+ · \d+$/.test(text) || /^\d+ vs \d+$/.test(text);
  await expect.poll(async () => (await painted()).filter(([text]) => isWriteLabel(text)).length).toBeGreaterThan(1);
  await expect.poll(async () => (await painted()).some(([text]) => /^\d+ vs \d+$/.test(text))).toBe(true);
  const labels = (await painted()).filter(([text]) => /^token \d+$/.test(text) || isWriteLabel(text));
  for (const [text, px] of labels) expect(px, `"${text}" on the canvas`).toBeGreaterThanOrEqual(MIN_PX);

  // The timeline's box is the largest of the page's boxes beside it (it is contained by none of them).
  const areas = await presenter.timeline.evaluate((timeline) => {
    const area = (e: Element) => {
      const r = e.getBoundingClientRect();
      return r.width * r.height;
    };
    const others = [...document.querySelectorAll('header, section, [role="region"], aside, nav, details')]
      .filter((e) => e !== timeline && !e.contains(timeline) && !timeline.contains(e))
      .map((e) => ({ what: e.getAttribute('aria-labelledby') ?? e.tagName, area: area(e) }));
    return { timeline: area(timeline), largestOther: others.toSorted((a, b) => b.area - a.area)[0] };
  });
  expect(areas.timeline).toBeGreaterThan(areas.largestOther?.area ?? 0);

  // Nothing scrolls, and the narration is on screen beside the timeline.
  expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(720);
  await expect(presenter.narration).toBeInViewport({ ratio: 1 });
  await expect(presenter.timeline).toBeInViewport({ ratio: 1 });
});
