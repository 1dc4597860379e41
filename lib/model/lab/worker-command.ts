/*
 * The command a lab page gives a person to run a worker from their own machine with their own worker
 * line (db/worker-lines.ts): pasted into a shell, the URL (and so the password in it) stays one word.
 */

/** `npm run worker -- …` for a lab, with the worker URL quoted if it needs it, and the lab's join key if private. */
export function workerCommand(workerUrl: string, lab: string, joinKey?: string): string {
  const key = joinKey ? ` --join-key ${shellWord(joinKey)}` : '';
  return `npm run worker -- --db ${shellWord(workerUrl)} --lab ${shellWord(lab)}${key} --name <your name>`;
}

/** One shell word: as it is when that is safe to paste, else in single quotes. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9@%:/._~+=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
