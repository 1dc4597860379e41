import pg from 'pg';
import type { BenchSizes } from './sizes';
import type { Figure } from './stats';

/*
 * What the fenced write costs: the fenced UPDATE (the seed's statement, `AND last_token <= $2`) against
 * the same UPDATE without the predicate, on one PostgreSQL, with 1, 4 and 8 clients, on one hot
 * row and on many rows. Rounds alternate the two so that a noisy machine affects both alike.
 */

const ROWS = 1_000;
const CLIENTS = [1, 4, 8];

const FENCED =
  'UPDATE bench_rows SET value = $1, last_token = $2 WHERE id = $3 AND last_token <= $2 RETURNING last_token';
const PLAIN = 'UPDATE bench_rows SET value = $1, last_token = $2 WHERE id = $3 RETURNING last_token';

export async function benchThroughput(url: string, size: BenchSizes['throughput']): Promise<Figure[]> {
  const { rounds, roundMs } = size;
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query('DROP TABLE IF EXISTS bench_rows');
  await setup.query(
    'CREATE TABLE bench_rows (id integer PRIMARY KEY, value text NOT NULL, last_token bigint NOT NULL DEFAULT 0)',
  );
  await setup.query('INSERT INTO bench_rows (id, value) SELECT g, $1 FROM generate_series(1, $2) g', ['initial', ROWS]);
  await setup.end();

  const figures: Figure[] = [];
  for (const hot of [true, false]) {
    for (const clients of CLIENTS) {
      const sessions = await Promise.all(
        Array.from({ length: clients }, async () => {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          return client;
        }),
      );
      let fenced = 0;
      let plain = 0;
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? [FENCED, PLAIN] : [PLAIN, FENCED];
        for (const sql of order) {
          const ops = await hammer(sessions, sql, hot, roundMs);
          if (sql === FENCED) fenced += ops;
          else plain += ops;
        }
      }
      await Promise.all(sessions.map((s) => s.end()));
      const seconds = (rounds * roundMs) / 1000;
      const ratio = fenced / plain;
      figures.push({
        name: `${hot ? 'hot row' : `${ROWS} rows`}, ${clients} client${clients === 1 ? '' : 's'}`,
        value: `${ratio.toFixed(2)}×`,
        goal: '≥ 0.95×',
        met: ratio >= 0.95,
        note: `fenced ${Math.round(fenced / seconds)}/s, plain ${Math.round(plain / seconds)}/s`,
      });
    }
  }
  return figures;
}

async function hammer(sessions: pg.Client[], sql: string, hot: boolean, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  const counts = await Promise.all(
    sessions.map(async (session, i) => {
      let n = 0;
      while (Date.now() < deadline) {
        const id = hot ? 1 : 1 + ((i * 7919 + n * 104729) % ROWS);
        await session.query(sql, [`v${n}`, 1_000_000, id]);
        n++;
      }
      return n;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}
