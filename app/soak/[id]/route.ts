import { soakNotFoundHtml } from '@/lib/model/soak/soak-report';
import { soakIdSchema } from '@/lib/model/soak/soak-reports';
import { answeringErrors } from '@/lib/server/error-answers';
import { readSoakHtml } from '@/lib/server/soak-reports';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** A soak report's page, as `npm run soak` wrote it, found by its id (checked), never by a path. */
export const GET = answeringErrors(
  'soak report',
  async (_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> => {
    const id = soakIdSchema.safeParse((await params).id);
    const html = id.success ? await readSoakHtml(id.data) : undefined;
    // A page a person opens: no such report is said in words, as a page, not as an error body.
    return new Response(html ?? soakNotFoundHtml(), {
      status: html === undefined ? 404 : 200,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        // The page is ours, written by the soak with every value escaped: no script runs in it.
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      },
    });
  },
);
