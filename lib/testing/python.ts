import { execFileSync } from 'node:child_process';

/**
 * The first python3 here that imports psycopg, for the Python reference client's tests (Debian's
 * python3-psycopg is for /usr/bin/python3, which need not be the python3 on PATH); undefined if none.
 */
export function pythonWithPsycopg(): string | undefined {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import psycopg'], { stdio: 'ignore' });
      return python;
    } catch {
      // Not this one (not there, or without psycopg): the next.
    }
  }
  return undefined;
}
