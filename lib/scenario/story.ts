/** One line of a scenario's story: the text a person reads, and the same facts for machines. */
export type StoryLine = { step: string; text: string } & Record<string, unknown>;

export type ScenarioOutcome = { safe: boolean; verdict: string; lines: StoryLine[] };

export type StoryPrinter = (line: StoryLine) => void;

export function textPrinter(write: (text: string) => void): StoryPrinter {
  return (line) => write(line.text);
}

export function jsonPrinter(write: (text: string) => void): StoryPrinter {
  return (line) => write(JSON.stringify(line));
}

/**
 * The event a fact of the story names (by id), as the database recorded it: a story that ended
 * without it recorded (a step timed out) says so, naming what is missing.
 */
export function recordedEvent<E extends { id: number }>(events: readonly E[], id: number | undefined, what: string): E {
  const found = events.find((e) => e.id === id);
  if (!found) throw new Error(`the story ended without ${what}`);
  return found;
}
