import { FencingError } from '@/lib/model/core/errors';
import { soakIdSchema, soakLabSchema } from '@/lib/model/soak/soak-reports';
import { answeringErrors } from '@/lib/server/error-answers';
import { readSoakHistory } from '@/lib/server/soak-reports';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** A lab's history from a soak report, as a file /replay opens; the report and lab by checked ids. */
export const GET = answeringErrors(
  'soak history',
  async (_request: Request, { params }: { params: Promise<{ id: string; lab: string }> }): Promise<Response> => {
    const { id, lab } = await params;
    const report = soakIdSchema.safeParse(id);
    const kind = soakLabSchema.safeParse(lab);
    const text = report.success && kind.success ? await readSoakHistory(report.data, kind.data) : undefined;
    if (text === undefined) throw new FencingError('not_found', 'no such history');
    return new Response(text, {
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="fencing-lab-soak-${report.data}-${kind.data}.json"`,
        'Cache-Control': 'no-store',
      },
    });
  },
);
