import { rename, writeFile } from 'node:fs/promises';

/** Writes `file` whole or not at all (a reader never sees half a state file): a temporary file, renamed. */
export async function writeFileAtomically(file: string, text: string, mode?: number): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, mode === undefined ? undefined : { mode });
  await rename(temporary, file);
}
