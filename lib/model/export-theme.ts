import { z } from 'zod';
import type { SvgTheme } from './timeline-svg-theme';

/*
 * The export's theme, as the export panel offers it: in a module of its own, so that the panel
 * (on every lab page) does not load the SVG export's code, which it loads only on a click.
 */

/** The export's theme: the one on screen when it is made, or either. */
export const exportThemeChoice = z.enum(['screen', 'light', 'dark']);
export type ExportThemeChoice = z.infer<typeof exportThemeChoice>;

export const exportTheme = (choice: ExportThemeChoice, screenIsDark: boolean): SvgTheme =>
  choice === 'screen' ? (screenIsDark ? 'dark' : 'light') : choice;
