import { availableParallelism } from 'node:os';
import { parseRoomSettings, type RoomSettings } from '../model/core/room-settings';

/*
 * The room's settings, read from the environment once per process (issue 37): one schema
 * (lib/model/core/room-settings.ts), one typed object that every module takes. `npm start` has
 * refused to start with a setting it cannot use, naming it; a process started some other way with
 * such a setting fails its first read with the same words, never falls back to a default in silence.
 */

let read: RoomSettings | undefined;
let overridden: Partial<RoomSettings> | undefined;

/** This process's room settings (parsed on first use, then the same object). */
export function roomSettings(): RoomSettings {
  if (!read) {
    const { settings, problems } = parseRoomSettings(process.env, { cpus: availableParallelism() });
    if (problems.length) throw new Error(`the room's settings cannot be used: ${problems.join('; ')}`);
    read = settings;
  }
  return overridden ? { ...read, ...overridden } : read;
}

/**
 * For a test of a limit: these settings in place of the environment's until the returned function is
 * called (a test does so in its `after`). Nothing in the product calls it.
 */
export function overrideRoomSettings(values: Partial<RoomSettings>): () => void {
  const before = overridden;
  overridden = { ...overridden, ...values };
  return () => {
    overridden = before;
  };
}
