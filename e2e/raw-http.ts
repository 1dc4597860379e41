import { request as httpRequest } from 'node:http';

/*
 * One HTTP request exactly as a script sends it: the headers given (Host included, which fetch and
 * Playwright's request fixture set themselves) and the path as written (`%ff` stays `%ff`).
 */

export type Answer = { status: number; contentType: string; body: string };

export function send(
  baseURL: string,
  input: {
    path: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Sent in chunks, with no Content-Length: the server learns its size only by reading it. */
    chunked?: boolean;
    firstBytesOnly?: boolean;
  },
): Promise<Answer> {
  const url = new URL(baseURL);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: input.path, method: input.method ?? 'GET', headers: input.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          // A feed never ends: its status and first bytes are the answer.
          if (input.firstBytesOnly) res.destroy();
        });
        res.on('close', () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body }),
        );
      },
    );
    // The server may answer (413) before it has read all of a large body: its answer is what counts.
    req.on('error', reject);
    if (input.chunked && input.body !== undefined) {
      const body = Buffer.from(input.body);
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      req.end();
    } else {
      req.end(input.body);
    }
  });
}
