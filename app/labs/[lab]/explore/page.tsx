import type { Metadata } from 'next';
import Link from 'next/link';
import { PlayingControls } from '@/components/lab/explore/explore-player';
import { ExploredRun } from '@/components/lab/explore/explored-run';
import { SiteHeader } from '@/components/site-header';
import { isFencingError } from '@/lib/model/core/errors';
import {
  explorableAt,
  exploreHref,
  FAILOVER_PAGE_SIZES,
  parseExploreAddress,
} from '@/lib/model/explore/explore-inputs';
import { EXPLORE_BOUNDS, exploreLabOf } from '@/lib/model/explore/explore-labs';
import { HOLDER_NAMES } from '@/lib/model/explore/story';
import { summaryTitle } from '@/lib/model/lab/lab-instance';
import { exploreView, historyOfPath } from '@/lib/server/explore-page';
import { labForPage } from '@/lib/server/lab-page-data';

export const dynamic = 'force-dynamic';

type Props = {
  params: Promise<{ lab: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await labForPage((await params).lab, { failoverPage: true });
  return { title: `Explore: ${summaryTitle(lab)} · Fencing Lab` };
}

const button =
  'inline-block rounded-md border border-slate-400 px-3 py-1.5 font-medium hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-500 dark:hover:bg-slate-800';

/**
 * Every interleaving of the lab's small story, each write run by the lab's real SQL in a transaction
 * that is rolled back (db/explore.ts): the verdict with what was explored, and one state of the space
 * at a time, the path to it a permalink (`?path=0.2.1`). It changes nothing: not the lab, not its rows.
 */
export default async function ExplorePage({ params, searchParams }: Props) {
  // The failover lab is explored here too (its own page is app/labs/failover): no redirect to it.
  const { lab } = await labForPage((await params).lab, { failoverPage: true });
  const title = `Explore every interleaving: ${summaryTitle(lab)}`;
  const search = await searchParams;
  // `play=1`: the shortest way plays, a step at a time (PlayingControls); read apart from the explored address.
  const { play, ...addressParams } = search;
  const parsed = parseExploreAddress(addressParams);
  const explorable = parsed.ok ? explorableAt(lab.kind, parsed.address) : exploreLabOf(lab.kind);
  if ('refusal' in explorable || !parsed.ok) {
    return (
      <main className="mx-auto flex max-w-4xl flex-col gap-4 px-4 py-4">
        <SiteHeader subtitle={title} />
        <p role="alert" className="text-lg">
          {'refusal' in explorable
            ? explorable.refusal
            : `This address cannot be explored: ${parsed.ok ? '' : parsed.error}.`}
        </p>
        <Link href={`/labs/${lab.id}`} className="underline">
          Back to the lab
        </Link>
      </main>
    );
  }
  const address = parsed.address;
  /** The failover lab's replication, for its words and its toggle (its holders do not renew). */
  const pair = explorable.write.table === 'fo_rows' ? explorable.write.replication : undefined;
  let view: Awaited<ReturnType<typeof exploreView>>;
  try {
    view = await exploreView(explorable, address);
  } catch (error) {
    const busy = isFencingError(error, 'rate_limited');
    if (!busy && !isFencingError(error, 'db_unavailable')) throw error;
    return (
      <main className="mx-auto flex max-w-4xl flex-col gap-4 px-4 py-4">
        <SiteHeader subtitle={title} />
        <p role="alert" className="text-lg">
          {busy
            ? 'The explorer is busy with other explorations: reload this page in a few seconds.'
            : 'The database cannot be reached: nothing can be explored until it is back. Reload this page then.'}
        </p>
      </main>
    );
  }
  const at = (path: number[]) => exploreHref(lab.id, { ...address, path });
  const shortest = view.shortestPath;
  const shown = address.path.slice(0, view.taken.length);
  // Playing while the path shown is on the shortest way and short of its end.
  const onShortest = shortest !== undefined && shown.every((index, i) => shortest[i] === index);
  const playing = play === '1' && onShortest && shortest !== undefined && shown.length < shortest.length;
  const back = address.path.slice(0, Math.max(0, view.taken.length - 1));
  // The path as the page shows it (a permalink past its end shows its longest valid prefix).
  const query = exploreHref(lab.id, { ...address, path: address.path.slice(0, view.taken.length) }).split('?')[1];
  const sizes = pair
    ? FAILOVER_PAGE_SIZES
    : [
        { holders: 2, writes: 2 },
        { holders: EXPLORE_BOUNDS.holders.default, writes: EXPLORE_BOUNDS.writes.default },
        { holders: 3, writes: 2 },
      ];
  return (
    <main className="mx-auto flex max-w-4xl flex-col gap-5 px-4 py-4">
      <SiteHeader subtitle={title} />
      <section aria-labelledby="explore-verdict" className="space-y-2">
        <h2 id="explore-verdict" className="text-xl font-semibold">
          {view.holds ? 'Holds within these bounds' : 'Breaks'}
        </h2>
        <p data-testid="explore-verdict">{view.verdict}</p>
        <p className="text-sm">
          Each holder asks for the lease, then writes up to {address.writes} times with the token it believes it holds
          {address.renew
            ? ', renewing its lease before every write after its first (refused, it knows it lost the lease and writes no more) and giving it back after its last'
            : ''}
          ; any holder may be delayed between any two steps, and the lease may run out.
          {pair
            ? pair === 'sync'
              ? ' The lease, the sequence and the row are on a primary with a synchronous standby, which has every acknowledged grant and write at once; the primary may die once, at any moment, and the standby is promoted.'
              : ' The lease, the sequence and the row are on a primary with an asynchronous standby, which may catch up at any moment; the primary may die once, at any moment, and the standby is promoted with what it has.'
            : ''}{' '}
          Each write is the lab’s own SQL in PostgreSQL, in one transaction that is rolled back: nothing is committed.{' '}
          {view.counts.duplicates.toLocaleString('en-US')} states reached again were not explored again.
        </p>
        <nav aria-label="Bounds" className="flex flex-wrap gap-2 text-sm">
          {sizes.map((size) => (
            <Link
              key={`${size.holders}x${size.writes}`}
              href={exploreHref(lab.id, { ...size, renew: address.renew, sync: address.sync, path: [] })}
              className={button}
              aria-current={size.holders === address.holders && size.writes === address.writes ? 'page' : undefined}
            >
              {size.holders} holders × {size.writes} {size.writes === 1 ? 'write' : 'writes'}
            </Link>
          ))}
          {pair ? (
            <Link
              href={exploreHref(lab.id, { ...address, sync: !address.sync, path: [] })}
              className={button}
              data-testid="explore-sync"
            >
              {address.sync ? 'Asynchronous replication' : 'Synchronous replication'}
            </Link>
          ) : (
            <Link
              href={exploreHref(lab.id, { ...address, renew: !address.renew, path: [] })}
              className={button}
              data-testid="explore-renew"
            >
              {address.renew ? 'Holders that do not renew' : 'Careful holders: renew before each write'}
            </Link>
          )}
        </nav>
        {shortest ? (
          <p className="flex flex-wrap items-center gap-2">
            <Link href={at(shortest)} className={button}>
              Show me the shortest way to break it
            </Link>
            {playing ? (
              <PlayingControls
                next={`${at(shortest.slice(0, shown.length + 1))}&play=1`}
                pause={at(shown)}
                className={button}
              />
            ) : (
              <Link
                href={`${at(shortest.slice(0, onShortest && shown.length < shortest.length ? shown.length + 1 : 1))}&play=1`}
                className={button}
                scroll={false}
              >
                {onShortest && shown.length > 0 && shown.length < shortest.length ? 'Play on' : 'Play it step by step'}
              </Link>
            )}
            <span role="status" data-testid="explore-playing">
              {playing
                ? `Playing the shortest way: step ${shown.length} of ${shortest.length}…`
                : play === '1' && onShortest && shown.length === shortest.length
                  ? `Played the shortest way: all ${shortest.length} steps.`
                  : ''}
            </span>
          </p>
        ) : null}
      </section>

      <section aria-labelledby="explore-path" className="space-y-2">
        <h2 id="explore-path" className="text-xl font-semibold">
          This interleaving, {view.taken.length} {view.taken.length === 1 ? 'step' : 'steps'} in
        </h2>
        {view.taken.length === 0 ? (
          <p>Nothing has happened yet: the row holds its first value, and nobody holds the lease.</p>
        ) : (
          <ol className="list-decimal space-y-1 pl-6" data-testid="explore-steps">
            {view.taken.map((step) => (
              <li key={step.path.join('.')}>{step.words}</li>
            ))}
          </ol>
        )}
        <p data-testid="explore-row">
          The row{view.pair ? ` on ${view.pair.serving}` : ''} holds “{view.row.value}” with token {view.row.token}
          {view.pair?.standby
            ? `; the standby’s holds “${view.pair.standby.value}” with token ${view.pair.standby.token}`
            : ''}
          .
        </p>
        {view.violation ? (
          <p role="alert" className="font-semibold text-red-700 dark:text-red-400" data-testid="explore-violation">
            The checker: {view.violation}
          </p>
        ) : null}
        <div className="flex flex-wrap gap-2">
          {view.taken.length > 0 ? (
            <Link href={at(back)} className={button}>
              Back
            </Link>
          ) : null}
          {view.taken.length > 0 ? (
            <Link href={at([])} className={button}>
              Start over
            </Link>
          ) : null}
          <Link href={`/labs/${lab.id}`} className={button}>
            Back to the lab
          </Link>
        </div>
        {view.taken.length > 0 ? (
          <p className="flex flex-wrap items-center gap-2">
            <span>This interleaving as a run:</span>
            <Link href={`/replay?explore=${lab.id}&${query}`} className={button}>
              Open it in Replay
            </Link>
            <a href={`/labs/${lab.id}/explore/history?${query}`} download className={button}>
              Download it as a history file
            </a>
          </p>
        ) : null}
      </section>

      <section aria-labelledby="explore-next" className="space-y-2">
        <h2 id="explore-next" className="text-xl font-semibold">
          What may happen next
        </h2>
        {view.next.length === 0 ? (
          <p>
            {view.violation
              ? 'Nothing: this interleaving broke here.'
              : 'Nothing: every holder has done all its writes.'}
          </p>
        ) : (
          <ul className="flex flex-wrap gap-2" data-testid="explore-next">
            {view.next.map((step) => (
              <li key={step.path.join('.')}>
                <Link href={at(step.path)} className={button}>
                  {step.words}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>

      {view.taken.length > 0 ? (
        <section aria-labelledby="explore-run" className="space-y-2">
          <h2 id="explore-run" className="text-xl font-semibold">
            This interleaving on the lab&apos;s timeline
          </h2>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Drawn from the events its steps recorded, on a made-up clock of a step every 100 ms: nothing of it is live,
            the walk was rolled back.
          </p>
          {/* Keyed by the path: a step or Back is a client navigation, and a store made for one path's
              events would go on drawing that path beside the next one's words. */}
          <ExploredRun
            key={query}
            file={historyOfPath(lab, address, { events: view.events, steps: view.taken.length }).file}
            servers={
              pair
                ? {
                    options: { explored: { mode: pair }, holders: HOLDER_NAMES.slice(0, address.holders) },
                    moment: `after step ${view.taken.length}`,
                  }
                : undefined
            }
          />
        </section>
      ) : null}
    </main>
  );
}
