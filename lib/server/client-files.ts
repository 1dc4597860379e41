import 'server-only';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CLIENT_FILE_NAMES, CLIENT_FILES, type ClientFileName } from '../model/lab/client-files';

/** A name from the closed list, or nothing: a path, a `..`, another file's name finds nothing. */
export const clientFileNameSchema = z.enum(CLIENT_FILE_NAMES);

/**
 * The text of a file a trainee may save (lib/model/lab/client-files.ts), read from the project, where
 * the app server runs. The build must not follow the path (see lib/server/data-dir.ts): the comments
 * keep Turbopack from tracing the whole project.
 */
export async function readClientFile(name: ClientFileName): Promise<string> {
  return readFile(path.join(/*turbopackIgnore: true*/ process.cwd(), CLIENT_FILES[name]), 'utf8');
}
