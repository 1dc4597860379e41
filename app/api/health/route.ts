import { checkDatabase } from '@/db/health';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** 200 once the database answers and the schema is in place; 503 with the reason otherwise. */
export async function GET() {
  const health = await checkDatabase();
  return Response.json(health, {
    status: health.status === 'ok' ? 200 : 503,
    headers: { 'Cache-Control': 'no-store' },
  });
}
