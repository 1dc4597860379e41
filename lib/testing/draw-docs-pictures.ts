import { drawDocsPictures } from './docs-pictures';

/*
 * `npm run docs:pictures`, first half: draws the docs' SVG pictures again from their recorded histories
 * (docs-pictures.ts). The second half takes the screens in Chromium: playwright.pictures.config.ts.
 */
for (const file of drawDocsPictures()) console.log(`drew ${file}`);
