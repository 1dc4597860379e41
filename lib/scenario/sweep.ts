import 'server-only';
import { describeRun, OUTCOME_LABEL, OUTCOME_SYMBOL, type SweepRunResult } from '../model/sweep/sweep-cell';
import { FENCINGS, type SweepGrid, sortedGrid } from '../model/sweep/sweep-grid';
import { cellKey } from '../model/sweep/sweep-heatmap';
import { runSweep } from '../sweep/run-sweep';
import type { ScenarioOutcome, StoryLine, StoryPrinter } from './story';

/*
 * `npm run scenario -- sweep --pauses 200,800,2000 --ttls 500,1500 [--drifts 0,50] [--concurrency 2]`:
 * the timed pause story at every point of the grid, without fencing and fenced, each run in a
 * private lab of its own (lib/sweep/). One line per run as it ends (with a progress bar on a
 * terminal), then the heat map as text tables. Safe when no fenced run let a stale write through.
 */

const BAR_WIDTH = 24;

export async function runSweepScenario(
  input: { grid: SweepGrid; concurrency: number },
  print: StoryPrinter,
  bar?: (text: string) => void,
): Promise<ScenarioOutcome> {
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  const results = await runSweep(input, ({ done, total, result }) => {
    const filled = Math.round((done / total) * BAR_WIDTH);
    bar?.(`[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total} runs`);
    say({
      step: 'run',
      text: `[${done}/${total}] ${describeRun(result)}`,
      done,
      total,
      ...result,
    });
  });
  for (const text of heatmapTables(input.grid, results)) say({ step: 'heatmap', text });
  const fencedLost = results.filter((r) => r.fencing === 'fenced' && r.outcome === 'stale-accepted');
  const unfencedLost = results.filter((r) => r.fencing === 'unfenced' && r.outcome === 'stale-accepted');
  const attempted = results.filter((r) => r.staleAttempts > 0);
  const unfinished = results.filter((r) => r.outcome === 'unfinished');
  const safe = fencedLost.length === 0;
  const fencedRejected = results.filter((r) => r.fencing === 'fenced' && r.outcome === 'stale-rejected');
  const verdict = safe
    ? `safe: ${attempted.length} of ${results.length} runs attempted a stale write: without fencing ${unfencedLost.length} accepted (a lost update each), fenced ${fencedRejected.length} rejected${unfinished.length ? `; ${unfinished.length} unfinished` : ''}`
    : `UNSAFE: a fenced run accepted a stale write (${fencedLost.map((r) => describeRun(r)).join('; ')})`;
  say({
    step: 'verdict',
    text: verdict,
    safe,
    runs: results.length,
    staleAttempted: attempted.length,
    lostUpdates: unfencedLost.length,
    unfinished: unfinished.length,
  });
  return { safe, verdict, lines };
}

/** The heat map as text: a table per drift and lab, a row per TTL, a column per pause. */
export function heatmapTables(grid: SweepGrid, results: readonly SweepRunResult[]): string[] {
  const { pausesMs, ttlsMs, driftsPercent } = sortedGrid(grid);
  const byKey = new Map(results.map((r) => [cellKey(r.point, r.fencing), r]));
  const width = 18;
  const pad = (text: string) => text.padEnd(width);
  const out: string[] = [];
  for (const driftPercent of driftsPercent) {
    for (const fencing of FENCINGS) {
      const drift = driftPercent > 0 ? `, A's clock ${driftPercent} % slow` : '';
      out.push(`${fencing === 'fenced' ? 'fenced' : 'without fencing'}${drift}:`);
      out.push(pad('  TTL \\ pause') + pausesMs.map((p) => pad(`${p} ms`)).join(''));
      for (const ttlMs of ttlsMs) {
        const cells = pausesMs.map((pauseMs) => {
          const run = byKey.get(cellKey({ pauseMs, ttlMs, driftPercent }, fencing));
          return pad(run ? `${OUTCOME_SYMBOL[run.outcome]} ${OUTCOME_LABEL[run.outcome]}` : '…');
        });
        out.push(pad(`  ${ttlMs} ms`) + cells.join(''));
      }
    }
  }
  return out.map((line) => line.trimEnd());
}
