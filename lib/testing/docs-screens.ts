import type { LabId } from '../model/lab/lab-kinds';

/*
 * The pictures of the app's real screens that the docs show: one list, read by the Playwright run that
 * takes them (e2e/docs-pictures.pictures.ts, `npm run docs:pictures`: real Chromium against `npm start`)
 * and by docs.test.ts, which fails when a doc shows a picture not in this list, or one of these is
 * missing or too heavy. Taken in this order: each screen may go on from the one before. `at`: the
 * walkthrough step a screen shows, by its id: the one place its number comes from (a doc that says
 * "step 6 of 7" beside the picture is held to it).
 */

export const SCREENS = [
  {
    id: 'fenced-rejected',
    file: 'docs/pictures/fenced-walkthrough-rejected.png',
    at: { lab: 'fenced', step: 'a-wakes' },
    shows: "the fenced lab's walkthrough at step 6: A wakes and its late write with its old token is rejected",
  },
  {
    id: 'fenced-presenter',
    file: 'docs/pictures/fenced-presenter.png',
    at: { lab: 'fenced', step: 'a-wakes' },
    shows: 'the same step in presenter mode, at 1280×720 as a projector shows it',
  },
  {
    id: 'no-fencing-lost-update',
    file: 'docs/pictures/no-fencing-lost-update.png',
    at: { lab: 'no-fencing', step: 'a-wakes' },
    shows: "the no-fencing lab's walkthrough at step 6: A's late write is accepted over B's, a lost update",
  },
  {
    id: 'read-check-write-lost-update',
    file: 'docs/pictures/read-check-write-lost-update.png',
    at: { lab: 'read-check-write', step: 'a-wakes' },
    shows: "the read-check-write lab's walkthrough as A wakes: A's late write, checked before it froze, overwrites B's",
  },
  {
    id: 'token-as-text-b-refused',
    file: 'docs/pictures/token-as-text-b-refused.png',
    at: { lab: 'token-as-text', step: 'a-wakes' },
    shows:
      "the token-as-text lab's walkthrough as A wakes: B's newer token was refused as text, A's late write accepted",
  },
  {
    id: 'per-process-counter-lost-update',
    file: 'docs/pictures/per-process-counter-lost-update.png',
    at: { lab: 'per-process-counter', step: 'a-wakes' },
    shows: "the per-process-counter lab's walkthrough as A wakes: both counters said 1, A's late write overwrites B's",
  },
  {
    id: 'same-token-takeover-lost-update',
    file: 'docs/pictures/same-token-takeover-lost-update.png',
    at: { lab: 'same-token-takeover', step: 'a-wakes' },
    shows: "the same-token-takeover lab's walkthrough as A wakes: B holds A's token, A's late write overwrites B's",
  },
  {
    id: 'bypass-lost-update',
    file: 'docs/pictures/bypass-lost-update.png',
    at: { lab: 'bypass', step: 'a-wakes' },
    shows: "the bypass lab's walkthrough as A wakes: A's overdue write takes the unfenced catch-up path over B's",
  },
  {
    id: 'delayed-packet-unfenced-lost-update',
    file: 'docs/pictures/delayed-packet-unfenced-lost-update.png',
    at: { lab: 'delayed-packet-unfenced', step: 'held-write-arrives' },
    shows: "the unfenced delayed-packet lab's walkthrough as A's held write arrives and overwrites B's",
  },
  {
    id: 'drifting-clock-lost-update',
    file: 'docs/pictures/drifting-clock-lost-update.png',
    at: { lab: 'drifting-clock', step: 'a-writes-late' },
    shows: "the drifting-clock lab's walkthrough as A, its clock slow, writes after its lease ran out, over B's",
  },
  {
    id: 'delayed-packet-rejected',
    file: 'docs/pictures/delayed-packet-rejected.png',
    at: { lab: 'delayed-packet', step: 'held-write-arrives' },
    shows: "the fenced delayed-packet lab's walkthrough as A's held write arrives and is rejected as stale",
  },
  {
    id: 'drifting-clock-fenced-rejected',
    file: 'docs/pictures/drifting-clock-fenced-rejected.png',
    at: { lab: 'drifting-clock-fenced', step: 'a-writes-late' },
    shows: "the fenced drifting-clock lab's walkthrough as A, its clock slow, writes late and is rejected as stale",
  },
  {
    id: 'home',
    file: 'docs/pictures/home.png',
    shows: 'the home page: the labs, the protected rows and the leases as the database holds them',
  },
  {
    id: 'your-guard-broken',
    file: 'docs/pictures/your-guard-broken.png',
    shows:
      "a trainee's your-guard lab after a guard comparing tokens as text: its verdict, broken, and the counterexample",
  },
  {
    id: 'class-wall',
    file: 'docs/pictures/class-wall.png',
    shows: "the class wall, newest first: that trainee's broken guard above the right one they tried first",
  },
  {
    id: 'explore-shortest-break',
    file: 'docs/pictures/explore-shortest-break.png',
    shows: "the no-fencing lab's Explore page at 2 holders × 2 writes, at the end of the shortest way to break it",
  },
  {
    id: 'failover-lost-write',
    file: 'docs/pictures/failover-lost-write.png',
    at: { lab: 'failover', step: 'the-verdict' },
    shows:
      "the failover lab's asynchronous walkthrough at its verdict: B's acknowledged write gone with the primary, A's late write accepted",
  },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];

/** The walkthrough step a screen shows (`at`), or undefined for a screen that names none. */
export function screenStep(id: ScreenId): { lab: LabId; step: string } | undefined {
  const screen = SCREENS.find((s) => s.id === id);
  return screen && 'at' in screen ? screen.at : undefined;
}

/** Every picture is the browser's window at this size, one image pixel per CSS pixel. */
export const SCREEN_SIZE = { width: 1280, height: 720 } as const;

/** The most a picture may weigh: the docs stay quick to load and to clone. */
export const MAX_SCREEN_BYTES = 150_000;
