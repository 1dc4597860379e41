import type { Metadata } from 'next';
import { FailoverPresenter } from '@/components/lab/failover/failover-presenter';
import { FAILOVER_LAB } from '@/lib/model/failover/failover-events';
import { labForPage } from '@/lib/server/lab-page-data';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Presenter: Failover · Fencing Lab' };

type Props = { searchParams: Promise<{ mode?: string; step?: string }> };

/** The failover lab for a projector; `?mode=sync` and `?step=N` as on its page. Arriving runs nothing. */
export default async function FailoverPresenterPage({ searchParams }: Props) {
  const query = await searchParams;
  const step = Number.parseInt(query.step ?? '', 10);
  const access = await labForPage(FAILOVER_LAB, { failoverPage: true });
  return (
    <FailoverPresenter
      lab={access.lab}
      mode={query.mode === 'sync' ? 'sync' : 'async'}
      canDrive={access.canDrive}
      initialStep={Number.isInteger(step) && step > 0 ? step : undefined}
    />
  );
}
