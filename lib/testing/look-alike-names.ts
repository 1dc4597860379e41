/*
 * Names that drew a second lane labelled A (or B) in a shared lab (issue 33 item 4, and issue 11
 * before it): letters outside ASCII that look like Latin ones, and "A" with an invisible Hangul
 * filler after it. The form (lib/model/lab/lab-inputs.ts) and worker_join refuse each one, in the
 * same words (lib/model/core/input-bounds.ts WORKER_NAME_WORDS.letters).
 */
export const LOOK_ALIKE_NAMES = [
  ['Lisu A', '\uA4EE'],
  ['Lisu B', '\uA4D0'],
  ['Cherokee A', '\u13AA'],
  ['Cherokee B', '\u13F4'],
  ['Canadian syllabics A', '\u15C5'],
  ['small capital A', '\u1D00'],
  ['A and a Hangul filler', 'A\u115F'],
  ['fullwidth A', '\uFF21'],
  ['Cyrillic A', '\u0410'],
  ['Greek B', '\u0392'],
] as const;
