import { FencingError } from '@/lib/model/core/errors';
import { answeringErrors } from '@/lib/server/error-answers';
import { exploredFileFor } from '@/lib/server/explore-page';
import { readCredentials } from '@/lib/server/request-credentials';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * An explored interleaving (the Explore page's `?holders&writes&path`) as a history file to download:
 * /replay and compare open it like any run's (issue 35). A bad address or a lab the explorer does not
 * run is a 400 in words; a lab this browser may not see, a 404.
 */
export const GET = answeringErrors(
  'explore history',
  async (request: Request, { params }: { params: Promise<{ lab: string }> }): Promise<Response> => {
    const { lab } = await params;
    const query: Record<string, string | string[]> = {};
    const search = new URL(request.url).searchParams;
    for (const key of new Set(search.keys())) {
      const values = search.getAll(key);
      query[key] = values.length === 1 ? (values[0] as string) : values;
    }
    const found = await exploredFileFor(lab, query, await readCredentials());
    if (!found.ok) throw new FencingError(found.code, found.message);
    return new Response(`${JSON.stringify(found.file, null, 2)}\n`, {
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="${found.fileName}"`,
        'Cache-Control': 'no-store',
      },
    });
  },
);
