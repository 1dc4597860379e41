import { expect, test } from './fixtures';
import { stepNumberOf } from './steps';

/*
 * The checker's banner on a broken lab, step by step (issue 21): nothing is called a violation
 * before the events that make it are recorded, and the one lost update is one violation, the rules
 * it broke listed inside it. The per-process counter is the lab where every write carries the
 * counter's token (1) under a lease with another (10 or so): normal there, and harmless until B's
 * value is overwritten.
 */

test("per-process counter: no violation yet until A's late write, then one violation listing its kinds", async ({
  lab,
  page,
}) => {
  test.setTimeout(120_000);
  const counter = lab('per-process-counter');

  await counter.gotoWalkthrough();
  await counter.startOver.click();
  await counter.expectStep('setup', 'The lab has been reset.');

  // From A's first write to B's takeover: A writes with its counter's token, freezes, its lease runs
  // out, B takes over and writes.
  const takeover = stepNumberOf('per-process-counter', 'b-takes-over');
  for (let step = stepNumberOf('per-process-counter', 'a-writes'); step <= takeover; step++) {
    await counter.nextStep();
    await counter.expectStep(step, /\S/);
    await expect(counter.checkerOk).toHaveText('✓ Checker: no violation yet');
    await expect(counter.checkerViolations).toHaveCount(0);
  }
  // The banner is a live region: a screen reader hears its words at each change, not the mark ("check mark").
  const heardOk = await counter.checkerOk.ariaSnapshot();
  expect(heardOk).toContain('Checker: no violation yet');
  expect(heardOk).not.toContain('✓');
  await expect(counter.rowValue()).toHaveText('B-1');

  // A wakes and writes over B's value with the same counter token: one lost update.
  await counter.nextStep();
  await counter.expectStep('a-wakes', /\S/);
  await expect(counter.checkerViolations).toHaveText('✗ Checker: 1 violation');
  const heardViolation = await counter.checkerViolations.ariaSnapshot();
  expect(heardViolation).toContain('Checker: 1 violation');
  expect(heardViolation).not.toContain('✗');
  const lost = page
    .getByRole('listitem')
    .filter({ hasText: /^lost update: B's value "B-1" \(token 1\) overwritten by A/ });
  await expect(lost).toHaveCount(1);
  // Whether A's counter happens to equal its lease's token depends on the sequence: the kinds begin the same.
  await expect(lost).toContainText(" — written under a lease superseded by B's");
  // Its evidence, one sentence per rule broken, listed under it.
  await expect(
    lost.getByRole('listitem').filter({ hasText: /^A wrote "A-\d+" with its lease token \d+ at / }),
  ).toHaveCount(1);
  await expect(counter.checkerOk).toHaveCount(0);
});
