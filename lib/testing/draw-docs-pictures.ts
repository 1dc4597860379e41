import { drawDocsPictures } from './docs-pictures';

/* `npm run docs:pictures`: draws the docs' pictures again from their recorded histories (docs-pictures.ts). */
for (const file of drawDocsPictures()) console.log(`drew ${file}`);
