import type { WireEvent } from '../core/wire';
import { type ClientFaultKind, clientLaneFaults, clientLanes } from './client-faults';

/*
 * The class wall's clients (issue 36, item 6): each run of a person's own program as a lane, who ran
 * it, in which language, how it ended, what it did wrong. Pure: the runs come from client_runs
 * (db/client-runs.ts, written by a trigger on the lab's events), already filtered to what the viewer
 * may see (the trainer: everyone's; anyone else: their own).
 */

/** How a run stands: its program runs, its runner has not beaten for a while, or it ended. */
export type ClientRunState = 'running' | 'silent' | 'ended';

/** A run as a browser may see it: the person is a key made from the owner's hash, never the hash. */
export type WallClientRun = {
  id: number;
  /** The person's key, and the name they last gave the wall; none: this server's own machine. */
  trainee?: string;
  name?: string;
  lab: string;
  labTitle: string;
  actor: string;
  /** The program and its script, as its start named it ("python3 worker.py"). */
  program: string;
  language: string;
  state: ClientRunState;
  /** Once ended: how (the runner's words; another worker took its name; the same person started it again). */
  ended?: { how: 'stopped' | 'crashed' | 'replaced' | 'restarted'; reason: string };
  /** Once ended: what it did wrong (clientFaults over its run), in words; undefined: not known (its events cleared first). */
  faults?: { kind: ClientFaultKind; words: string }[];
  /** Whether the lab no longer holds its events (a reset cleared them). */
  cleared: boolean;
  /** Whether /replay?client= opens its history for this viewer (ended, kept, and a lab the viewer may see). */
  hasHistory: boolean;
  /** ms since the epoch (the database's clock). */
  at: number;
};

const BY_PROGRAM: Record<string, string> = {
  python: 'Python',
  python3: 'Python',
  pypy3: 'Python',
  bash: 'bash',
  sh: 'shell',
  dash: 'shell',
  zsh: 'zsh',
  psql: 'psql',
  node: 'JavaScript',
  deno: 'JavaScript',
  bun: 'JavaScript',
  tsx: 'TypeScript',
  ruby: 'Ruby',
  perl: 'Perl',
  php: 'PHP',
  java: 'Java',
  go: 'Go',
  cargo: 'Rust',
  dotnet: 'C#',
  elixir: 'Elixir',
  mix: 'Elixir',
};

const BY_EXTENSION: Record<string, string> = {
  py: 'Python',
  sh: 'bash',
  bash: 'bash',
  sql: 'psql',
  js: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  ts: 'TypeScript',
  rb: 'Ruby',
  pl: 'Perl',
  php: 'PHP',
  java: 'Java',
  jar: 'Java',
  go: 'Go',
  rs: 'Rust',
  exs: 'Elixir',
  ex: 'Elixir',
  cs: 'C#',
};

/**
 * The language a run's program is written in, as far as its name says: its script's extension first
 * ("bash worker.sh" is bash, "uv run client.py" Python), then its program ("python3.12" is Python);
 * otherwise the program's own name, which is all the wall knows of it.
 */
export function languageOf(program: string): string {
  const [first = '', script] = program.trim().split(/\s+/);
  const extension = script ? /\.([A-Za-z0-9]+)$/.exec(script)?.[1]?.toLowerCase() : undefined;
  if (extension && BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  const base = first.toLowerCase().replace(/[\d.]+$/, '');
  if (BY_PROGRAM[base]) return BY_PROGRAM[base];
  const own = /\.([A-Za-z0-9]+)$/.exec(first)?.[1]?.toLowerCase();
  return (own && BY_EXTENSION[own]) || first || 'a program';
}

/** The wall's short words for a fault (the lab page says it in full). */
const FAULT_WORDS: Record<ClientFaultKind, string> = {
  'ungranted-token': 'wrote with a token it was never granted',
  'wrote-after-refusal': 'kept writing after a refusal',
  'never-renewed': 'never renewed its lease and wrote after it ran out',
};

/**
 * What a run did wrong, from its history (the lab's events from its start to its end): the faults of
 * its lane's own run (clientLaneFaults), never of another lane or of our worker under its name.
 */
export function runFaults(history: readonly WireEvent[], actor: string): { kind: ClientFaultKind; words: string }[] {
  const lane = clientLanes(history).find((one) => one.actor === actor);
  if (!lane) return [];
  return clientLaneFaults(history, lane).map((fault) => ({ kind: fault.kind, words: FAULT_WORDS[fault.kind] }));
}

/** Who ran it, as the wall says it: "Tina · 3f9a" (the guard wall's way), "a trainee · 3f9a", or this server's machine. */
export function runnerLabel(run: Pick<WallClientRun, 'trainee' | 'name'>): string {
  if (!run.trainee) return "the trainer's machine";
  return `${run.name ?? 'a trainee'} · ${run.trainee.slice(0, 4)}`;
}

/**
 * A part of what the wall says of a run, with the mark the eye sees before its words (▶ running, ■ ended,
 * ✓ or ✗ its faults, … silent): a page shows the mark hidden from screen readers, which would read "black
 * square" or "ballot x"; the words say it all. No mark: the words stand alone.
 */
export type RunPart = { mark?: '▶' | '…' | '■' | '✓' | '✗'; words: string };

/** How a run stands or ended, in the wall's words, with what it did wrong once it ended: a part each. */
export function runParts(run: Pick<WallClientRun, 'state' | 'ended' | 'faults' | 'cleared'>): RunPart[] {
  if (run.state === 'running') return [{ mark: '▶', words: 'running' }];
  if (run.state === 'silent') {
    return [{ mark: '…', words: 'no word from its runner for a while (its machine asleep, or the lab reset)' }];
  }
  if (run.ended?.how === 'replaced') return [{ mark: '■', words: 'another worker took its name' }];
  if (run.ended?.how === 'restarted') return [{ mark: '■', words: 'started again (its newer run is listed apart)' }];
  const how: RunPart = {
    mark: '■',
    words: run.ended?.reason || (run.ended?.how === 'crashed' ? 'crashed' : 'stopped'),
  };
  if (!run.faults) {
    return [how, { words: 'what it did is not known: its events were cleared (a reset) before it was judged' }];
  }
  const faults: RunPart = run.faults.length
    ? { mark: '✗', words: run.faults.map((fault) => fault.words).join('; ') }
    : { mark: '✓', words: 'no fault seen' };
  return [how, faults];
}

/** What the wall says of a run in one line, marks and all, as the eye reads it ("■ stopped · ✓ no fault seen"). */
export function runWords(run: Pick<WallClientRun, 'state' | 'ended' | 'faults' | 'cleared'>): string {
  return runParts(run)
    .map(({ mark, words }) => (mark ? `${mark} ${words}` : words))
    .join(' · ');
}

/**
 * The runs held, with `run` as the live feed sent it again: it replaces the version held, newest run
 * first. The feed reads each change's row on its own, so two close changes may cross: a run held as
 * ended is never taken back to running by a read that started before its end.
 */
export function withClientRun(runs: readonly WallClientRun[], run: WallClientRun): WallClientRun[] {
  const held = runs.find((one) => one.id === run.id);
  if (held?.state === 'ended' && run.state !== 'ended') return [...runs];
  return [run, ...runs.filter((one) => one.id !== run.id)].sort((a, b) => b.id - a.id);
}
