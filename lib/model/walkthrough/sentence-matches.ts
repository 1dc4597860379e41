/*
 * The narration oracle's patterns, and every match of one in a sentence, remembered by sentence: the
 * oracle reads the same sentence at every moment of a history (a step says the same words until a fact
 * it names changes), and matching its forty-odd patterns again each time was most of the property
 * test's time (narration-properties.test.ts). Only the matches are remembered, never a verdict: each
 * claim is still held to the events of the moment it is read at. Pure; bounded (the oldest sentences
 * go first).
 */

type Matches = readonly RegExpExecArray[];

const compiled = new WeakMap<TemplateStringsArray, RegExp>();

/**
 * A claim's pattern (a tagged template: claimPattern`token (\d+)`), compiled once for its place in the code,
 * so that a sentence's matches are found by the pattern's identity. Its parts must be constants (the
 * oracle's VALUE, TIME, …): the first parts a place is given are the ones it keeps.
 */
export function claimPattern(strings: TemplateStringsArray, ...parts: string[]): RegExp {
  let pattern = compiled.get(strings);
  if (pattern === undefined) {
    pattern = new RegExp(String.raw({ raw: strings }, ...parts), 'g');
    compiled.set(strings, pattern);
  }
  return pattern;
}

const MAX_SENTENCES = 2_000;
const bySentence = new Map<string, Map<RegExp, Matches>>();

/** Every match of `pattern` in `text` (matchAll's, remembered). */
export function matchesIn(text: string, pattern: RegExp): Matches {
  let patterns = bySentence.get(text);
  if (patterns === undefined) {
    if (bySentence.size >= MAX_SENTENCES) {
      const oldest = bySentence.keys().next();
      if (!oldest.done) bySentence.delete(oldest.value);
    }
    patterns = new Map();
    bySentence.set(text, patterns);
  }
  let found = patterns.get(pattern);
  if (found === undefined) {
    found = [...text.matchAll(pattern)];
    patterns.set(pattern, found);
  }
  return found;
}
