import { answeringErrors } from '@/lib/server/error-answers';
import { databaseHealth } from '@/lib/server/health';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** 200 with `status: 'up'` once the database answers and the schema is in place; 503 `down` or `recovering` otherwise. */
export const GET = answeringErrors('health', async (): Promise<Response> => {
  const health = await databaseHealth();
  return Response.json(health, {
    status: health.status === 'up' ? 200 : 503,
    headers: { 'Cache-Control': 'no-store' },
  });
});
