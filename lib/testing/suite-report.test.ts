import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { busyCpuSeconds, suiteReport } from './suite-report';

describe("npm test's closing table", () => {
  const ran = [
    { name: 'lint', startedAt: 0, seconds: 3, busyCpuSeconds: 4, code: 0 },
    { name: 'e2e', startedAt: 60, seconds: 1_500, busyCpuSeconds: 1_650, code: 0 },
    { name: 'node', startedAt: 1_560, seconds: 800, busyCpuSeconds: 1_560, code: 1 },
  ];
  const lines = suiteReport(ran, { seconds: 2_400, busyCpuSeconds: 3_300, cpuCount: 2 });

  test("each suite's line says when it started, what it took, the CPUs' busy time and share, and whether it passed", () => {
    const e2e = lines.find((line) => line.trimStart().startsWith('e2e'));
    assert.match(e2e ?? '', /^ {2}e2e +at +60 s +1500 s +1650 CPU-s +55% +passed$/);
    const node = lines.find((line) => line.trimStart().startsWith('node'));
    assert.match(node ?? '', /1560 CPU-s +98% +FAILED$/);
  });

  test('the total and the floor: the busy CPU-seconds spread over every CPU', () => {
    assert.match(lines.at(-2) ?? '', /^ {2}total +2400 s +3300 CPU-s +69%$/);
    assert.equal(lines.at(-1), '  the same work with every CPU busy all the time: about 1650 s (27.5 min) on 2 CPUs');
  });

  test('a machine that shows no CPU: no share and no floor, and no NaN', () => {
    const blind = suiteReport(ran, { seconds: 2_400, busyCpuSeconds: 0, cpuCount: 0 });
    assert.match(blind.at(-1) ?? '', /^ {2}total +2400 s +0 CPU-s +\?$/);
    assert.ok(!blind.some((line) => /NaN|Infinity/.test(line)), blind.join('\n'));
  });

  test("the machine's busy CPU time only grows, and grows while this process computes", () => {
    const before = busyCpuSeconds();
    const until = performance.now() + 200;
    let spin = 0;
    while (performance.now() < until) spin += Math.sqrt(spin + 1);
    assert.ok(spin > 0);
    const after = busyCpuSeconds();
    assert.ok(after - before >= 0.1, `${before} → ${after}`);
  });
});
