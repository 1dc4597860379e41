import 'server-only';
import { recordExpiredLeases } from '../../db/leases';
import { OutageLog } from '../log/outage-log';

const RECORD_EVERY_MS = 50;

/**
 * The expiry recorder: records lease expiries by the database's clock (once per lease), a pass
 * every 50 ms, while `active()` says workers run: a frozen holder cannot say its lease ran out, and
 * the timeline must show when it did.
 */
export class ExpiryRecorder {
  private timer: NodeJS.Timeout | undefined;
  private recording = false;
  private readonly outage = new OutageLog('supervisor', 'expiry recording');

  constructor(private readonly active: () => boolean) {}

  ensureRunning(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.recording) return;
      this.recording = true;
      recordExpiredLeases()
        .then(
          () => this.outage.succeeded(),
          (error: unknown) => this.outage.failed(error),
        )
        .finally(() => {
          this.recording = false;
          // Asked after the pass, not before: a worker started meanwhile keeps it running.
          if (!this.active()) this.stop();
        });
    }, RECORD_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
