import type { WriteMark } from './timeline';
import type { MarkText } from './timeline-layout-types';

/*
 * A write mark in words: what the database decided, said of the statement that really ran. Most labs
 * run one statement of the app's own, named by the write's path; the your-guard lab runs the
 * trainee's, whose outcome may be anything: an error, a stale write let through, a fresh one
 * refused. Nothing is said that the recorded write does not show.
 */

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 23);

/** The write's path in the your-guard lab (0033_your_guard_lab.sql). */
export const YOUR_GUARD_PATH = 'your guard';
/** The token-as-text lab's write path: its check compares the tokens' digits, as text. */
const TEXT_PATH = 'compared as text';

export const writeKey = (write: WriteMark) => `write:${write.eventId}`;

/** The label drawn on the mark. */
export const writeLabel = (write: WriteMark) => {
  if (write.error !== undefined) return `${write.token}: error`;
  return write.outcome === 'accepted'
    ? `${write.value} · ${write.token}`
    : `${write.token} vs ${write.storedToken ?? '?'}`;
};

/** The outcome, after "A's write "A-1" with token 9: ". */
function outcomeWords(write: WriteMark): string {
  const guard = write.path === YOUR_GUARD_PATH;
  if (write.error !== undefined) return `${guard ? 'your guard' : 'the statement'} raised an error: ${write.error}`;
  if (write.outcome === 'accepted') {
    return guard && write.overToken !== undefined && write.overToken > write.token
      ? `accepted over the newer token ${write.overToken}`
      : 'accepted';
  }
  const stored = write.storedToken;
  if (stored === undefined || stored > write.token) return 'rejected as stale';
  return stored === write.token
    ? `refused: the row already held token ${stored}`
    : `refused, though the row held only the older token ${stored}`;
}

/** What ran, and what it did to the row. */
function statementWords(write: WriteMark): string {
  const accepted = write.outcome === 'accepted';
  const stored = write.storedToken ?? '?';
  if (write.path === YOUR_GUARD_PATH) {
    // On one line: PostgreSQL's printer breaks a long WHERE over several.
    const ran = write.statement
      ? `your guard ran: ${write.statement.replace(/\s+/g, ' ')}`
      : "your guard's statement ran";
    if (write.error !== undefined) return `${ran}; it failed, so the write was undone and changed nothing`;
    if (accepted) return `${ran}; it changed the row`;
    return `${ran}; it changed no row, and the row holds token ${stored}`;
  }
  if (accepted) return 'UPDATE … RETURNING last_token: 1 row, the row now holds this token';
  if (write.path === TEXT_PATH) {
    const asText = write.storedToken !== undefined && write.storedToken < write.token;
    return `UPDATE … WHERE last_token::text <= '${write.token}': 0 rows, the row holds token ${stored}${
      asText ? ` ('${stored}' sorts after '${write.token}' as text)` : ''
    }`;
  }
  return `UPDATE … WHERE last_token <= ${write.token}: 0 rows, the row holds token ${stored}`;
}

export function writeWords(who: string, write: WriteMark): MarkText {
  const accepted = write.outcome === 'accepted';
  return {
    key: writeKey(write),
    kind: accepted ? 'write-accepted' : 'write-rejected',
    lane: who,
    eventId: write.eventId,
    at: write.at,
    title: `${who}'s write ${JSON.stringify(write.value)} with token ${write.token}: ${outcomeWords(write)}`,
    lines: [
      `${write.sentAt ? `sent at ${clock(write.sentAt)}, ` : ''}decided at ${clock(write.at)} (database time)`,
      statementWords(write),
      ...(write.path ? [`write path: ${write.path}`] : []),
    ],
    flagged: false,
  };
}
