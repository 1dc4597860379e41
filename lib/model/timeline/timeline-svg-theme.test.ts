import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HATCHES, PALETTES, type SvgTheme } from './timeline-svg-theme';

/** WCAG's contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (bl ?? 0);
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

for (const theme of ['light', 'dark'] as SvgTheme[]) {
  test(`${theme} theme: a freeze's label ("frozen before its write") reads against its hatch's fill and its lines`, () => {
    const p = PALETTES[theme];
    const hatch = HATCHES['hatch-pause'];
    // The label is drawn in `text` over the hatch (lib/model/timeline/timeline-layout-marks.ts `bar`).
    assert.ok(contrast(p.text, p[hatch.fill]) >= 4.5, `label on the fill: ${contrast(p.text, p[hatch.fill])}`);
    assert.ok(contrast(p.text, p[hatch.line]) >= 3, `label on the lines: ${contrast(p.text, p[hatch.line])}`);
    // The hatch itself still reads without colour: its lines stand out from its fill.
    assert.ok(contrast(p[hatch.line], p[hatch.fill]) >= 1.8, 'the cross-hatch is visible');
  });
}
