import { CLIENT_FILE_NAMES } from '@/lib/model/lab/client-files';
import { clientFileNameSchema, readClientFile } from '@/lib/server/client-files';
import { answeringErrors } from '@/lib/server/error-answers';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * A file a trainee saves to run their own lock client with Python alone (`curl -O http://<room>/clients/runner.py`,
 * or the lab page's link): found by its name in a closed list, never by a path. Plain text, shown
 * as text and never run by the browser.
 */
export const GET = answeringErrors(
  'client file',
  async (_request: Request, { params }: { params: Promise<{ file: string }> }): Promise<Response> => {
    const name = clientFileNameSchema.safeParse((await params).file);
    if (!name.success) {
      return new Response(`No such file. The room serves ${CLIENT_FILE_NAMES.join(', ')}.\n`, {
        status: 404,
        headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
      });
    }
    return new Response(await readClientFile(name.data), {
      headers: {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'",
        'Cache-Control': 'no-cache',
      },
    });
  },
);
