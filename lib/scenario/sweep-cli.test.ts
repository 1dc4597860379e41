import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runScenario } from '../testing/run-scenario';

describe('npm run scenario -- sweep', () => {
  test('a 2 × 1 grid: a line per run, the heat map as tables, safe, as JSON lines', async () => {
    const { code, stdout, stderr } = await runScenario(['sweep', '--pauses', '300,5000', '--ttls', '2000', '--json']);
    assert.equal(code, 0, stderr);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const runs = lines.filter((line) => line.step === 'run');
    assert.deepEqual(
      runs.map((run) => run.done),
      [1, 2, 3, 4],
    );
    const outcome = (pauseMs: number, fencing: string) =>
      runs.find((run) => run.point.pauseMs === pauseMs && run.fencing === fencing)?.outcome;
    assert.deepEqual(
      [outcome(300, 'unfenced'), outcome(300, 'fenced'), outcome(5000, 'unfenced'), outcome(5000, 'fenced')],
      ['no-stale-write', 'no-stale-write', 'stale-accepted', 'stale-rejected'],
    );
    const table = lines.filter((line) => line.step === 'heatmap').map((line) => line.text);
    assert.deepEqual(table.slice(0, 3), [
      'without fencing:',
      '  TTL \\ pause     300 ms            5000 ms',
      '  2000 ms         – no stale write  ✗ lost update',
    ]);
    const verdict = lines.at(-1);
    assert.equal(verdict.step, 'verdict');
    assert.equal(verdict.safe, true);
    assert.match(verdict.text, /^safe: 2 of 4 runs attempted a stale write: without fencing 1 accepted/);
  });

  test('refuses a grid past its limits, or its options on another scenario, with the reason (exit 2)', async () => {
    const short = await runScenario(['sweep', '--pauses', '50', '--ttls', '500']);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /pause lengths must be at least 100 ms/);
    const big = await runScenario(['sweep', '--pauses', '100,200,300,400,500', '--ttls', '500,600,700,800,900']);
    assert.equal(big.code, 2);
    assert.match(big.stderr, /at most 24 points/);
    const words = await runScenario(['sweep', '--pauses', '200;drop', '--ttls', '500']);
    assert.equal(words.code, 2);
    assert.match(words.stderr, /--pauses must be numbers separated by commas/);
    const elsewhere = await runScenario(['pause', '--pauses', '200']);
    assert.equal(elsewhere.code, 2);
    assert.match(elsewhere.stderr, /for the sweep only/);
  });
});
