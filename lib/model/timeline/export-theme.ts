import type { SvgTheme } from './timeline-svg-theme';

/*
 * The export's theme, as the export panel offers it: in a module of its own, so that the panel
 * (on every lab page) loads neither the SVG export's code (it loads that on a click) nor zod.
 */

export const EXPORT_THEME_CHOICES = ['screen', 'light', 'dark'] as const;
/** The export's theme: the one on screen when it is made, or either. */
export type ExportThemeChoice = (typeof EXPORT_THEME_CHOICES)[number];

/** The <select>'s value, checked: one of the choices, or undefined. */
export const exportThemeChoice = (value: string): ExportThemeChoice | undefined =>
  EXPORT_THEME_CHOICES.find((choice) => choice === value);

export const exportTheme = (choice: ExportThemeChoice, screenIsDark: boolean): SvgTheme =>
  choice === 'screen' ? (screenIsDark ? 'dark' : 'light') : choice;
