import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { acquireLease } from '../../db/leases';
import { migrate } from '../../db/migrate';
import { newClient } from '../../db/pool';
import { burnTokenInRollback, takeLoneNextval } from '../../db/token-shortcuts';
import { crashPostmaster, startEmbeddedPostgres } from '../launcher/embedded-postgres';
import { startThrowawayCluster } from '../launcher/throwaway-cluster';
import { checkHistory, type Violation } from '../model/checker/checker';
import type { WireEvent } from '../model/core/wire';
import type { ScenarioOutcome, StoryLine, StoryPrinter } from './story';

/*
 * The durability lab: does a token survive a crash of the database? Two ways of taking a token run
 * side by side on one sequence while a third session calls nextval in transactions that roll back,
 * and the postmaster is killed (-9) in the middle, cycle after cycle:
 *  - "grant": nextval inside the committed transaction that records the lease (what this lab does);
 *  - "lone nextval": a lone autocommit SELECT nextval(...) (a common shortcut).
 * A token counts as handed out once its call returned to the client. After each restart both take
 * a token again; the checker names any token handed out twice. Runs on a throwaway embedded
 * cluster of its own, never on the app's database.
 */

const LOAD_MS = { min: 100, max: 300 };

type Taker = 'grant' | 'lone nextval';

export async function runDurabilityScenario(cycles: number, print: StoryPrinter): Promise<ScenarioOutcome> {
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  const cluster = await startThrowawayCluster('durability-lab');
  let current = cluster;
  await migrate(current.url);
  const handedOut: Record<Taker, Array<{ token: number; at: number; cycle: number }>> = {
    grant: [],
    'lone nextval': [],
  };
  let grantCount = 0;
  const take = async (taker: Taker, session: pg.Client, cycle: number) => {
    const token = taker === 'grant' ? await grantToken(session, ++grantCount) : await takeLoneNextval(session);
    handedOut[taker].push({ token, at: Date.now(), cycle });
  };

  say({
    step: 'durability',
    text: `durability: ${cycles} crash cycles (kill -9 of the postmaster) with both ways of taking a token side by side`,
  });
  try {
    for (let cycle = 1; cycle <= cycles; cycle++) {
      const sessions = await Promise.all([0, 1, 2].map(() => connect(current.url)));
      const [granter, loner, roller] = sessions as [pg.Client, pg.Client, pg.Client];
      let running = true;
      const loops = [
        (async () => {
          while (running) await take('grant', granter, cycle);
        })(),
        (async () => {
          while (running) await take('lone nextval', loner, cycle);
        })(),
        (async () => {
          while (running) await burnTokenInRollback(roller);
        })(),
        // A load loop ends with an error when its session is cut: that is the crash under test.
      ].map((loop) => loop.catch(() => undefined));
      await sleep(LOAD_MS.min + Math.random() * (LOAD_MS.max - LOAD_MS.min));
      await crashPostmaster(current);
      running = false;
      await Promise.all(loops);
      // Sessions the crash already ended have nothing to end.
      await Promise.all(sessions.map((s) => s.end().catch(() => undefined)));

      const restarted = await startEmbeddedPostgres({ dataDir: cluster.dataDir });
      current = Object.assign(cluster, {
        url: restarted.url,
        port: restarted.port,
        postmasterPid: restarted.postmasterPid,
      });
      const after = await connect(current.url);
      await take('grant', after, cycle);
      await take('lone nextval', after, cycle);
      await after.end();
    }
  } finally {
    await cluster.dispose();
  }

  const report = (taker: Taker, lab: string) => {
    const events: WireEvent[] = handedOut[taker].map((h, i) => ({
      id: i + 1,
      lab,
      at: h.at,
      actor: `${taker} (cycle ${h.cycle})`,
      kind: 'lease_acquired',
      token: h.token,
      detail: {},
    }));
    return checkHistory(events).violations.filter((v) => v.rule === 'token-granted-twice');
  };
  const repeats: Record<Taker, Violation[]> = {
    grant: report('grant', 'grant'),
    'lone nextval': report('lone nextval', 'lone'),
  };
  for (const taker of ['grant', 'lone nextval'] as const) {
    const found = repeats[taker];
    const cyclesHit = new Set(found.map((v) => v.message.match(/cycle (\d+)\)/)?.[1])).size;
    say({
      step: 'result',
      text: `${taker === 'grant' ? 'nextval in the committed grant transaction' : 'lone autocommit nextval'}: ${handedOut[taker].length} tokens handed out, ${found.length} handed out twice${found.length ? ` (in ${cyclesHit} of ${cycles} cycles)` : ''}`,
      taker,
      tokens: handedOut[taker].length,
      repeated: found.length,
    });
    for (const violation of found.slice(0, 3))
      say({ step: 'violation', text: `  checker: ${violation.message}`, taker, ...violation });
  }
  const safe = repeats.grant.length === 0;
  say({
    step: 'verdict',
    text: safe
      ? 'safe: no token minted in a committed grant was ever handed out twice'
      : 'UNSAFE: a token minted in a committed grant was handed out twice',
    safe,
  });
  return { safe, verdict: lines.at(-1)?.text ?? '', lines };
}

async function connect(url: string): Promise<pg.Client> {
  const client = newClient(url);
  client.removeAllListeners('error');
  client.on('error', () => undefined); // the crash is the point
  await client.connect();
  return client;
}

async function grantToken(session: pg.Client, n: number): Promise<number> {
  const result = await acquireLease(
    { lab: 'durability', resource: `durability/${n}`, holder: 'grant', ttlMs: 100 },
    session,
  );
  if (result.outcome !== 'granted') throw new Error('a fresh resource should always be granted');
  return result.lease.token;
}
