import { expect, type Locator, type Page } from '@playwright/test';
import { isLabId, type LabId } from '../../lib/model/lab/lab-kinds';
import { stepNumberOf, stepOf } from '../steps';

/** Generous: every worker-driven step waits on real processes, leases of seconds and a 10 s freeze. */
export const WORKER_STEP_TIMEOUT = 20_000;
/**
 * A deep link's run of a whole walkthrough in one wait (two workers started, a lease run out, a freeze
 * and its end): about 15 s alone, and 1.5 to 2.5 times that beside another e2e half.
 */
export const WHOLE_WALKTHROUGH_TIMEOUT = 90_000;

/** A mark the history checker named in a violation is announced with this prefix (and drawn with a ⚠). */
const FLAG = '(?:Violation: )?';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A lab as a person finds it: the timeline (each mark a button named by what it means), the row and
 * the lease as they are in the database, and either the controls (free play) or the narration (the
 * walkthrough).
 */
export class LabPage {
  readonly timeline: Locator;
  /** The drawing itself: every mark in it is a button whose accessible name says what happened. */
  readonly marks: Locator;
  readonly writeMarks: Locator;
  readonly rowMarks: Locator;
  readonly noHolderYet: Locator;
  readonly zoomOut: Locator;
  readonly shownSpan: Locator;
  /** The history checker's live verdict above the timeline. */
  readonly checkerOk: Locator;
  readonly checkerViolations: Locator;

  readonly rowTable: Locator;
  readonly row: Locator;
  readonly leaseTable: Locator;
  readonly lease: Locator;
  readonly nobodyHoldsTheLease: Locator;

  readonly stepCounter: Locator;
  readonly narration: Locator;
  readonly next: Locator;
  readonly back: Locator;
  readonly autoplay: Locator;
  readonly startOver: Locator;
  /** The walkthrough's "Waiting for …" while a step runs (the trainer's page and the presenter). */
  readonly stepRunning: Locator;
  /** Where the lab is, when the page shows another step (a deep link) or the lab is off script. */
  readonly where: Locator;
  /** The offer to run the steps up to the one shown. */
  readonly runSteps: Locator;

  readonly controls: Locator;
  readonly workerName: Locator;
  readonly leaseTtl: Locator;
  readonly startWorkerButton: Locator;
  readonly noWorkers: Locator;
  readonly pauseLength: Locator;
  readonly pauseFor: Locator;
  readonly pauseUntilResumed: Locator;
  readonly freezeBeforeNextWrite: Locator;
  readonly resume: Locator;
  readonly crash: Locator;
  readonly restart: Locator;
  readonly resetLab: Locator;
  readonly shortcuts: Locator;
  readonly notice: Locator;
  readonly error: Locator;

  /** The lab's kind, whose walkthrough definition says how many steps it has (a shared lab's id is its kind). */
  readonly kind: LabId;

  /** A shared lab, named by its kind; or a private lab (`p-…`), with its kind. */
  constructor(page: Page, lab: LabId);
  constructor(page: Page, lab: string, kind: LabId);
  constructor(
    readonly page: Page,
    readonly lab: string,
    kind?: LabId,
  ) {
    if (kind === undefined && !isLabId(lab)) throw new Error(`${lab} is a private lab: its LabPage needs its kind`);
    this.kind = kind ?? (lab as LabId);
    this.timeline = page.getByRole('region', { name: /^Timeline/ });
    this.marks = this.timeline.getByRole('group', { name: /^Timeline of / }).getByRole('button');
    this.writeMarks = this.timeline.getByRole('button', { name: /^(Violation: )?\S+'s write ".*" with token \d+: / });
    this.rowMarks = this.timeline.getByRole('button', { name: /^(Violation: )?The row holds / });
    this.noHolderYet = this.timeline.getByText('No holder yet');
    this.zoomOut = this.timeline
      .getByRole('toolbar', { name: 'Timeline view' })
      .getByRole('button', { name: 'Zoom out' });
    this.shownSpan = this.timeline.getByRole('toolbar', { name: 'Timeline view' }).getByText(/^showing /);
    this.checkerOk = page.getByRole('status').filter({ hasText: /^✓ Checker: no violation/ });
    this.checkerViolations = page.getByRole('alert').filter({ hasText: /^✗ Checker: \d+ violations?/ });

    this.rowTable = page.getByRole('region', { name: /^(protected|unguarded|fo)_rows/ });
    this.row = this.rowTable.getByTestId('lab-row');
    this.leaseTable = page.getByRole('region', { name: 'leases', exact: true });
    this.lease = this.leaseTable.getByTestId('lab-lease');
    this.nobodyHoldsTheLease = this.leaseTable.getByText('Nobody holds the lease.');

    this.stepCounter = page.getByText(/^Step \d+ of \d+$/);
    this.narration = page.getByTestId('narration');
    this.stepRunning = page.getByRole('status').filter({ hasText: /^Waiting for / });
    this.next = page.getByRole('button', { name: 'Next', exact: true });
    this.back = page.getByRole('button', { name: 'Back', exact: true });
    this.autoplay = page.getByRole('button', { name: 'Autoplay', exact: true });
    this.startOver = page.getByRole('button', { name: 'Start over', exact: true });
    this.where = page.getByTestId('walkthrough-where');
    this.runSteps = page.getByRole('button', { name: /^Run steps? \d/ });

    this.controls = page.getByRole('region', { name: 'Controls', exact: true });
    this.workerName = this.controls.getByLabel('Worker name');
    this.leaseTtl = this.controls.getByLabel('Lease TTL (s)');
    this.startWorkerButton = this.controls.getByRole('button', { name: /^Start worker/ });
    this.noWorkers = this.controls.getByText('No workers yet.');
    this.pauseLength = this.controls.getByLabel('Pause length (s)');
    this.pauseFor = this.controls.getByRole('button', { name: /^Pause [\d.]+ s/ });
    this.pauseUntilResumed = this.controls.getByRole('button', { name: /^Pause until resumed/ });
    this.freezeBeforeNextWrite = this.controls.getByRole('button', { name: /^Freeze before its next write/ });
    this.resume = this.controls.getByRole('button', { name: /^Resume/ });
    this.crash = this.controls.getByRole('button', { name: /^Crash/ });
    this.restart = this.controls.getByRole('button', { name: /^Restart/ });
    this.resetLab = this.controls.getByRole('button', { name: /^Reset lab/ });
    this.shortcuts = this.controls.getByText('Keyboard shortcuts', { exact: true });
    // The confirmation of the last command (the chaos run has a status line of its own).
    this.notice = this.controls.getByRole('status').filter({ hasText: /^✓ / });
    this.error = this.controls.getByRole('alert');
  }

  async gotoFreePlay() {
    await this.page.goto(`/labs/${this.lab}`);
  }

  /**
   * Opens the walkthrough; with `step` (its id in the lab's walkthrough, or its number from 1), the deep
   * link that shows that step and offers to run up to it.
   */
  async gotoWalkthrough(step?: string | number) {
    const n = typeof step === 'string' ? stepNumberOf(this.kind, step) : step;
    await this.page.goto(`/labs/${this.lab}/walkthrough${n ? `?step=${n}` : ''}`);
  }

  // The timeline.

  /** A write mark on `holder`'s lane, by its outcome; `value` and `token` narrow it down. */
  writeMark(
    holder: string,
    outcome: 'accepted' | 'rejected',
    { value, token }: { value?: string; token?: number } = {},
  ) {
    const valuePart = value === undefined ? '[^"]*' : escapeRegExp(value);
    const tokenPart = token === undefined ? '\\d+' : String(token);
    const outcomePart = outcome === 'accepted' ? 'accepted' : 'rejected as stale';
    return this.timeline.getByRole('button', {
      name: new RegExp(
        `^${FLAG}${escapeRegExp(holder)}'s write "${valuePart}" with token ${tokenPart}: ${outcomePart}\\.`,
      ),
    });
  }

  /** The database lane's mark for the row holding `value` with `token`. */
  rowMark(value: string, token: number) {
    return this.timeline.getByRole('button', {
      name: new RegExp(`^${FLAG}The row holds "${escapeRegExp(value)}" with token ${token}\\.`),
    });
  }

  /**
   * Marks whose accessible name starts with `title` (a mark's name is its title, then its details,
   * after "Violation: " when the checker flagged it).
   */
  markTitled(title: string | RegExp) {
    const source = typeof title === 'string' ? `^${FLAG}${escapeRegExp(title)}` : title.source;
    return this.timeline.getByRole('button', { name: new RegExp(source) });
  }

  /**
   * Zooms the timeline out until it shows `seconds` (doubling from 14 s): only the stretch of time on
   * screen is drawn, so a test that needs every mark since the reset widens the view first.
   */
  async zoomOutTo(seconds: 28 | 56 | 112 | 224 | 448) {
    // One click per try, until the view says it: a click before the page is interactive is not lost.
    await expect(async () => {
      const shown = Number((await this.shownSpan.textContent())?.match(/^showing ([\d.]+) s$/)?.[1]);
      if (shown < seconds) await this.zoomOut.click();
      expect(shown).toBe(seconds);
    }).toPass({ timeout: WORKER_STEP_TIMEOUT });
  }

  /** The accessible names of `marks` (the timeline's marks by default), in document order. */
  async markNames(marks: Locator = this.marks): Promise<string[]> {
    return marks.evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label') ?? ''));
  }

  // The live tables.

  rowValue() {
    return this.row.getByRole('cell').nth(1);
  }

  rowToken() {
    return this.row.getByRole('cell').nth(2);
  }

  leaseHolder() {
    return this.lease.getByRole('cell').nth(0);
  }

  leaseToken() {
    return this.lease.getByRole('cell').nth(1);
  }

  leaseExpiry() {
    return this.lease.getByRole('cell').nth(2);
  }

  /** Waits until the lease table shows `holder` holding the lease, and returns its token. */
  async waitForLeaseHolder(holder: string): Promise<number> {
    await expect(this.leaseHolder()).toHaveText(holder, { timeout: WORKER_STEP_TIMEOUT });
    await expect(this.leaseExpiry()).toHaveText(/^in /, { timeout: WORKER_STEP_TIMEOUT });
    return Number(await this.leaseToken().textContent());
  }

  // The walkthrough.

  /**
   * Waits for a step to be complete as a reader sees it: its counter ("Step n of N", n and N as the lab's
   * walkthrough definition has them), its narration, and no step still running. Start over on a lab
   * already at its reset (a test's clean-up resets it) shows that step while its reset runs: a key
   * pressed then (Q, →) is refused or lost, as a trainer's would be (seen in CI: poll.spec's Q).
   * `step` is its id in the lab's walkthrough (looked up with `stepNumberOf`), or its number from 1 where a
   * loop counts them; `timeout` is for a wait that runs several steps (WHOLE_WALKTHROUGH_TIMEOUT).
   */
  async expectStep(step: string | number, narration: string | RegExp, { timeout = WORKER_STEP_TIMEOUT } = {}) {
    await expect(this.stepCounter).toHaveText(stepOf(this.kind, step), { timeout });
    await expect(this.narration).toContainText(narration, { timeout });
    await expect(this.stepRunning).toHaveCount(0, { timeout });
  }

  /** The step shown (from 1), once the page knows where the lab is and shows a narration. */
  async shownStep(): Promise<number> {
    await expect(this.narration).not.toBeEmpty({ timeout: WORKER_STEP_TIMEOUT });
    return Number((await this.stepCounter.textContent())?.match(/^Step (\d+) of/)?.[1]);
  }

  async nextStep() {
    await expect(this.next).toBeEnabled({ timeout: WORKER_STEP_TIMEOUT });
    await this.next.click();
  }

  // The controls.

  /** The worker's entry in the list of workers (a radio button named by the worker and its state). */
  worker(name: string) {
    return this.controls.getByRole('radio', { name: new RegExp(`^${escapeRegExp(name)} `) });
  }

  /** The question a shared lab's reset asks first (a private lab resets at once). */
  get resetDialog() {
    return this.page.getByRole('dialog', { name: 'Reset the shared lab?' });
  }

  /** Whether this is a shared lab (the room's, named by its kind), whose reset asks first. */
  get shared() {
    return !/^p-/.test(this.lab);
  }

  /** Reset lab, confirmed when the lab is shared (by the button, or `viaShortcut` by the X key). */
  async reset({ viaShortcut = false }: { viaShortcut?: boolean } = {}) {
    if (viaShortcut) await this.page.keyboard.press('x');
    else await this.resetLab.click();
    if (this.shared) {
      await expect(this.resetDialog).toBeVisible();
      await this.resetDialog.getByRole('button', { name: 'Reset the lab' }).click();
      await expect(this.resetDialog).toBeHidden();
    }
    await expect(this.notice).toHaveText(/The lab was reset/, { timeout: WORKER_STEP_TIMEOUT });
    await expect(this.noWorkers).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await expect(this.noHolderYet).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
    await expect(this.marks).toHaveCount(0);
    await expect(this.nobodyHoldsTheLease).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  }

  async startWorker(name: string, ttlSeconds: number) {
    await this.workerName.fill(name);
    await this.leaseTtl.fill(String(ttlSeconds));
    await this.startWorkerButton.click();
    await expect(this.notice).toHaveText(new RegExp(`Started ${escapeRegExp(name)} \\(w\\d+\\)`), {
      timeout: WORKER_STEP_TIMEOUT,
    });
    await expect(this.worker(name)).toBeVisible({ timeout: WORKER_STEP_TIMEOUT });
  }
}
