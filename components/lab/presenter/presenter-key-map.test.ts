import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { type DriveKeys, PRESENTER_KEYS, type PresenterKeyHandlers, presenterKeyAction } from './presenter-key-map';

/*
 * The presenter's keys without a browser: each driving key calls its own command for the trainer and
 * is refused by name for a watcher; W is the lab page's "freeze before its next write". Every key is
 * in the on-screen help (PRESENTER_KEYS) and in the trainer's guide.
 */

function pressed() {
  const calls: string[] = [];
  const drive = Object.fromEntries(
    (['next', 'back', 'toggleAutoplay', 'togglePause', 'freezeBeforeWrite', 'resume', 'askOrReveal'] as const).map(
      (name) => [name, () => calls.push(name)],
    ),
  ) as DriveKeys;
  const handlers = (driving: boolean): PresenterKeyHandlers => ({
    drive: driving ? drive : undefined,
    refused: (key) => calls.push(`refused ${key}`),
    selectWorker: (index) => calls.push(`select ${index}`),
    toggleFullscreen: () => calls.push('fullscreen'),
    toggleHelp: () => calls.push('help'),
    closeHelp: () => false,
    exit: () => calls.push('exit'),
  });
  const press = (key: string, driving = true) => {
    calls.length = 0;
    presenterKeyAction(key, handlers(driving))?.();
    return [...calls];
  };
  return press;
}

test("W freezes the selected worker before its next write, for the trainer; a watcher's W is refused by name", () => {
  const press = pressed();
  assert.deepEqual(press('w'), ['freezeBeforeWrite']);
  assert.deepEqual(press('W'), ['freezeBeforeWrite']);
  assert.deepEqual(press('w', false), ['refused W']);
  // P stays pause-until-resumed, R resume: three keys, three commands.
  assert.deepEqual(press('p'), ['togglePause']);
  assert.deepEqual(press('r'), ['resume']);
});

test('every other key as before, and a key that is none of them does nothing', () => {
  const press = pressed();
  assert.deepEqual(press('ArrowRight'), ['next']);
  assert.deepEqual(press('ArrowLeft', false), ['refused ←']);
  assert.deepEqual(press(' '), ['toggleAutoplay']);
  assert.deepEqual(press('q'), ['askOrReveal']);
  assert.deepEqual(press('3', false), ['select 2']);
  assert.deepEqual(press('f'), ['fullscreen']);
  assert.deepEqual(press('?'), ['help']);
  assert.deepEqual(press('Escape'), ['exit']);
  assert.equal(presenterKeyAction('x', { drive: undefined } as unknown as PresenterKeyHandlers), undefined);
});

test("the help lists W among the trainer's keys, and the trainer's guide names every presenter key", async () => {
  const w = PRESENTER_KEYS.find((k) => k.keys === 'W');
  assert.ok(w?.drives, 'W drives');
  assert.match(w.what, /before its next write/);
  const guide = await readFile('docs/trainers-guide.md', 'utf8');
  const single = /\*\*Single keys\*\*:([\s\S]*?)\n\n/.exec(guide)?.[1] ?? '';
  for (const { keys } of PRESENTER_KEYS) {
    assert.ok(single.includes(`**${keys}**`), `docs/trainers-guide.md's presenter keys name **${keys}**`);
  }
});
