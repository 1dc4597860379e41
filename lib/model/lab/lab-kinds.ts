/*
 * The lab kinds live in lib/labs/ (one definition per kind, and the questions code asks of them);
 * this module re-exports them for the model's older imports.
 */
export { isLabId, LAB_IDS, LABS, type LabDefinition, type LabId } from '../../labs/index';
export {
  compareWith,
  hasDriftingClock,
  hasPacketRelay,
  isFencedKind,
  isSharedLabId,
  isWorkerLabId,
  PRIVATE_LAB_KINDS,
  type PrivateLabKind,
  WORKER_LAB_IDS,
  type WorkerLabId,
} from '../../labs/traits';

/** The statement text the packet relay holds at: the delayed-packet labs' write (0023_delayed_packet_labs.sql). */
export const DELAYED_WRITE_MARKER = 'worker_delayed_packet_write';
