/*
 * The pictures of the app's real screens that the docs show: one list, read by the Playwright run that
 * takes them (e2e/docs-pictures.pictures.ts, `npm run docs:pictures`: real Chromium against `npm start`)
 * and by docs.test.ts, which fails when a doc shows a picture not in this list, or one of these is
 * missing or too heavy. Taken in this order: each screen may go on from the one before.
 */

export const SCREENS = [
  {
    id: 'fenced-rejected',
    file: 'docs/pictures/fenced-walkthrough-rejected.png',
    shows: "the fenced lab's walkthrough at step 6: A wakes and its late write with its old token is rejected",
  },
  {
    id: 'fenced-presenter',
    file: 'docs/pictures/fenced-presenter.png',
    shows: 'the same step in presenter mode, at 1280×720 as a projector shows it',
  },
  {
    id: 'no-fencing-lost-update',
    file: 'docs/pictures/no-fencing-lost-update.png',
    shows: "the no-fencing lab's walkthrough at step 6: A's late write is accepted over B's, a lost update",
  },
  {
    id: 'home',
    file: 'docs/pictures/home.png',
    shows: 'the home page: the labs, the protected rows and the leases as the database holds them',
  },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];

/** Every picture is the browser's window at this size, one image pixel per CSS pixel. */
export const SCREEN_SIZE = { width: 1280, height: 720 } as const;

/** The most a picture may weigh: the docs stay quick to load and to clone. */
export const MAX_SCREEN_BYTES = 150_000;
