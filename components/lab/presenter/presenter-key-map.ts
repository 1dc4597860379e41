/*
 * The presenter's keys and what each one does, apart from the window's events (presenter-keys.ts
 * listens; this decides): a plain module, so that a test can press keys without a browser.
 */

/** The presenter's keys, as the help lists them; `aria` is the aria-keyshortcuts value of the control. */
export const PRESENTER_KEYS = [
  { keys: '→', aria: 'ArrowRight', what: 'next step (runs it on the real lab)', drives: true },
  { keys: '←', aria: 'ArrowLeft', what: 'previous step (its narration again)', drives: true },
  { keys: 'Space', aria: 'Space', what: 'play / pause the walkthrough', drives: true },
  { keys: 'P', aria: 'P', what: 'pause the selected worker until resumed; P again resumes it', drives: true },
  {
    keys: 'W',
    aria: 'W',
    what: 'freeze the selected worker before its next write (after its lease check), until resumed',
    drives: true,
  },
  { keys: 'R', aria: 'R', what: 'resume the selected worker', drives: true },
  {
    keys: 'Q',
    aria: 'Q',
    what: 'ask the room the question about the next step; Q again reveals the answers',
    drives: true,
  },
  { keys: '1–8', aria: '1 2 3 4 5 6 7 8', what: 'select a worker', drives: false },
  { keys: 'F', aria: 'F', what: 'full screen on / off', drives: false },
  { keys: '?', aria: 'Shift+?', what: 'show / hide this help', drives: false },
  { keys: 'Esc', aria: 'Escape', what: 'close this help, or leave presenter mode', drives: false },
] as const;

export type DriveKeys = {
  next: () => unknown;
  back: () => unknown;
  toggleAutoplay: () => unknown;
  togglePause: () => unknown;
  /** W: the lab page's "Freeze before its next write" (a critical-window pause), until resumed. */
  freezeBeforeWrite: () => unknown;
  resume: () => unknown;
  askOrReveal: () => unknown;
};

export type PresenterKeyHandlers = {
  /** Undefined for a watcher: the driving keys are then refused, and `refused` says so. */
  drive: DriveKeys | undefined;
  refused: (key: string) => void;
  selectWorker: (index: number) => void;
  toggleFullscreen: () => void;
  toggleHelp: () => void;
  /** Closes the help if it is open; false when there was nothing to close. */
  closeHelp: () => boolean;
  exit: () => void;
};

/** What a key (KeyboardEvent.key) does on the presenter, or undefined when it is none of its keys. */
export function presenterKeyAction(key: string, h: PresenterKeyHandlers): (() => unknown) | undefined {
  const driving = (label: string, run: (drive: DriveKeys) => unknown) => () =>
    h.drive ? run(h.drive) : h.refused(label);
  const digit = /^[1-8]$/.test(key) ? Number(key) : undefined;
  if (digit !== undefined) return () => h.selectWorker(digit - 1);
  return new Map<string, () => unknown>([
    ['arrowright', driving('→', (d) => d.next())],
    ['arrowleft', driving('←', (d) => d.back())],
    [' ', driving('Space', (d) => d.toggleAutoplay())],
    ['p', driving('P', (d) => d.togglePause())],
    ['w', driving('W', (d) => d.freezeBeforeWrite())],
    ['r', driving('R', (d) => d.resume())],
    ['q', driving('Q', (d) => d.askOrReveal())],
    ['f', h.toggleFullscreen],
    ['?', h.toggleHelp],
    ['escape', () => h.closeHelp() || h.exit()],
  ]).get(key.toLowerCase());
}
