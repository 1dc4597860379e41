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
