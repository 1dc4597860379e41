import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkHistory } from '../model/checker/checker';
import { buildTimeline } from '../model/timeline/timeline';
import { timelineToSvg } from '../model/timeline/timeline-svg';
import { recorded } from './histories';

/*
 * The docs' pictures, drawn by the app's own SVG export (lib/model/timeline/timeline-svg.ts) from
 * histories recorded from real runs (lib/model/fixtures/): a picture in the docs is what the lab
 * draws today, not a screenshot that ages. docs.test.ts fails when a committed picture differs from
 * its drawing; `npm run docs:pictures` draws them again. The pictures of whole screens, which no
 * export draws, are taken in a browser by the same command: docs-screens.ts.
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** After the last event: the row's last value and A's last mark are not drawn at the very edge. */
const TAIL_MS = 800;

type Picture = { file: string; draw: () => string };

export const DOCS_PICTURES: readonly Picture[] = [
  {
    file: 'docs/fenced-pause.svg',
    draw: () => {
      const events = recorded('fenced');
      const end = Math.max(...events.map((e) => e.at)) + TAIL_MS;
      const flagged = new Set(checkHistory(events).violations.flatMap((v) => v.eventIds));
      return timelineToSvg(buildTimeline(events, end), {
        title: 'Fencing Lab · Fenced: the pause, as recorded (npm run scenario -- pause)',
        width: 960,
        flagged,
      });
    },
  },
];

/** Each picture whose committed file is not its drawing today. */
export function stalePictures(): string[] {
  return DOCS_PICTURES.filter(({ file, draw }) => {
    try {
      return readFileSync(path.join(REPO, file), 'utf8') !== draw();
    } catch {
      // No such file: it is stale too (drawing it makes it).
      return true;
    }
  }).map(({ file }) => file);
}

/** Draws every picture into its file (`npm run docs:pictures`). */
export function drawDocsPictures(): string[] {
  for (const { file, draw } of DOCS_PICTURES) writeFileSync(path.join(REPO, file), draw());
  return DOCS_PICTURES.map(({ file }) => file);
}
