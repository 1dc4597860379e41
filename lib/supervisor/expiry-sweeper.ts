import 'server-only';
import { recordExpiredLeases } from '../../db/leases';
import { OutageLog } from '../log/outage-log';

const EXPIRY_SWEEP_MS = 50;

/**
 * Records lease expiries by the database's clock (once per lease) while `active()` says workers
 * run: a frozen holder cannot say its lease ran out, and the timeline must show when it did.
 */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private readonly outage = new OutageLog('supervisor', 'expiry sweep');

  constructor(private readonly active: () => boolean) {}

  ensureRunning(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = true;
      recordExpiredLeases()
        .then(
          () => this.outage.succeeded(),
          (error: unknown) => this.outage.failed(error),
        )
        .finally(() => {
          this.sweeping = false;
          // Asked after the sweep, not before: a worker started meanwhile keeps it running.
          if (!this.active()) this.stop();
        });
    }, EXPIRY_SWEEP_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
