/*
 * The command a lab page gives a person to run a worker from their own machine with their own worker
 * line (db/worker-lines.ts): pasted into a shell, the URL (and so the password in it) stays one word.
 */

/** `npm run worker -- …` for a lab, with the worker URL quoted if it needs it, and the lab's join key if private. */
export function workerCommand(workerUrl: string, lab: string, joinKey?: string): string {
  const key = joinKey ? ` --join-key ${shellWord(joinKey)}` : '';
  return `npm run worker -- --db ${shellWord(workerUrl)} --lab ${shellWord(lab)}${key} --name <your name>`;
}

/**
 * The same command with a program of one's own as the lane (the runner, `--exec`; docs/protocol.md).
 * In a private lab its owner runs it as A, the lane the Your client story freezes; a shared lab's
 * trainer keeps the names A and B (worker_join refuses them there: `reserved_name`), so the person
 * picks a name of their own, as in the plain command.
 */
export function workerExecCommand(workerUrl: string, lab: string, joinKey?: string): string {
  const command = workerCommand(workerUrl, lab, joinKey);
  const named = joinKey ? command.replace(/--name <your name>$/, '--name A') : command;
  return `${named} --exec "python3 my_client.py"`;
}

/**
 * The same with nothing but Python 3 and psycopg on the person's machine: the runner in Python
 * (clients/python/runner.py, saved beside their program), with the program after `--`.
 */
export function workerPythonCommand(workerUrl: string, lab: string, joinKey?: string): string {
  const exec = workerExecCommand(workerUrl, lab, joinKey);
  return `${exec.replace(/^npm run worker -- /, 'python3 runner.py ').replace(/ --exec "python3 my_client\.py"$/, '')} -- python3 my_client.py`;
}

/** One shell word: as it is when that is safe to paste, else in single quotes. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9@%:/._~+=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
