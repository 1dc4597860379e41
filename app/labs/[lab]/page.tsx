import type { Metadata } from 'next';
import Link from 'next/link';
import { ForkWaiting } from '@/components/lab/fork-waiting';
import { LabDoors } from '@/components/lab/lab-doors';
import { LabPageShell } from '@/components/lab/lab-page-shell';
import { LabView } from '@/components/lab/lab-view';
import { OwnMachineWorker } from '@/components/lab/own-machine-worker';
import { takesTraineeGuard } from '@/lib/labs/traits';
import { exploreLabOf } from '@/lib/model/explore/explore-labs';
import { summaryTitle } from '@/lib/model/lab/lab-instance';
import { hasPacketRelay } from '@/lib/model/lab/lab-kinds';
import { doorsOfLab, forkOfLab, labForPage } from '@/lib/server/lab-page-data';
import { forkWaitingWords } from '@/lib/server/what-if';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ lab: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await labForPage((await params).lab);
  return { title: `${summaryTitle(lab)} · Fencing Lab` };
}

export default async function LabPage({ params }: Props) {
  const access = await labForPage((await params).lab);
  const { lab } = access;
  // A what-if fork leads back to the lab it was forked from, beside it.
  const fork = await forkOfLab(lab);
  // Its story is a job in the room's queue: until a server takes it, the empty timeline says why.
  const waiting = fork ? await forkWaitingWords(lab) : undefined;
  // A shared lab's doors: remote workers in or not, and whether nobody watching stopped it.
  const doors = await doorsOfLab(lab);
  return (
    <LabPageShell
      access={access}
      mode="free"
      subtitle={summaryTitle(lab)}
      links={
        <>
          {/* A your-guard lab's story is the attack its guard editor runs: it has no walkthrough of its own. */}
          {takesTraineeGuard(lab.kind) ? null : (
            <Link href={`/labs/${lab.id}/walkthrough`} className="text-base font-semibold underline">
              Walkthrough of this lab
            </Link>
          )}
          <Link href={`/labs/${lab.id}/present`} className="text-base font-semibold underline">
            Presenter mode
          </Link>
          {/* Every interleaving of its small story, on the real SQL (nothing committed): the labs the explorer runs. */}
          {'refusal' in exploreLabOf(lab.kind) ? null : (
            <Link href={`/labs/${lab.id}/explore`} className="text-base font-semibold underline">
              Explore every interleaving
            </Link>
          )}
          {fork ? (
            <Link
              href={`/compare?a=${encodeURIComponent(fork.from)}&b=${encodeURIComponent(lab.id)}`}
              className="text-base font-semibold underline"
            >
              Compare with the lab it was forked from
            </Link>
          ) : null}
        </>
      }
    >
      {doors ? (
        <LabDoors
          labId={lab.id}
          canDrive={access.canDrive}
          remoteWorkersOpen={doors.remoteWorkersOpen}
          {...(doors.idleStop
            ? {
                idleStop: {
                  idleMinutes: doors.idleStop.idleMinutes,
                  workers: doors.idleStop.workers.map((w) => w.name),
                },
              }
            : {})}
        />
      ) : null}
      {waiting ? <ForkWaiting words={waiting} /> : null}
      <LabView lab={lab} canDrive={access.canDrive} />
      {/* A delayed-packet lab's workers run behind this server's packet relay: one started by hand is refused. */}
      {(access.joinKey || doors?.remoteWorkersOpen) && !hasPacketRelay(lab.kind) ? (
        <OwnMachineWorker labId={lab.id} />
      ) : null}
    </LabPageShell>
  );
}
