/*
 * What a lab kind is made of. Code asks these traits, never a kind's id: a new kind is one file
 * beside this one, its row in lab_kinds (db/migrations), and its walkthrough spec. Every trait's
 * values are chosen never to equal a kind's id, so a scan of the source can find the ids.
 */

/** How a write is decided against a stale token. */
export type FencingPolicy =
  /** UPDATE … WHERE last_token <= token, in the write's own statement. */
  | 'fenced-write'
  /** A plain UPDATE: only the lease stands between two writers. */
  | 'none'
  /** The app reads last_token and compares, then writes unconditionally. */
  | 'app-check'
  /** The token compared as text: '10' < '9'. */
  | 'text-compare'
  /** Fenced, but an overdue write takes a catch-up path that skips the check. */
  | 'catch-up-bypass'
  /** The statement the trainee wrote, run as the lab's own role. */
  | 'trainee-guard';

/** Where the token a write presents comes from (lab_kinds.token_source). */
export type TokenSource = 'sequence' | 'worker-counter' | 'kept-on-takeover';

/** Which clock says whether a worker still holds its lease. */
export type LeaseClock = 'database' | 'worker-may-drift';

/** How a worker's statements reach PostgreSQL. */
export type Transport = 'direct' | 'packet-relay';

/** Who runs the lab's holders. */
export type Runner =
  /** Worker processes, started and stopped by the app's supervisor. */
  | 'supervised-workers'
  /** The app server's own sessions on a primary and standby of its own. */
  | 'failover-pair'
  /** Worker processes that attack a trainee's guard. */
  | 'guard-attack';

/** Which labs of the kind exist: the shared one, private ones a browser opens, or both. */
export type Visibility = 'shared-and-private' | 'private-only' | 'shared-only';

/** The story its walkthrough and scenario tell. */
export type Story = 'pause' | 'slow-clock' | 'held-packet' | 'primary-lost';

/** The checker's rules a broken kind is named for (a subset of lib/model/checker/checker.ts's Rule). */
export type ExpectedRule = 'token-went-back' | 'newer-token-rejected' | 'superseded-holder' | 'write-after-expiry';

export type ExpectedVerdict = {
  /** holds: 0 violations; breaks: the rule below shows; depends: on a setting or the trainee's statement. */
  verdict: 'holds' | 'breaks' | 'depends';
  rule: ExpectedRule | null;
  why: string;
};

export type LabTraits = {
  fencing: FencingPolicy;
  tokenSource: TokenSource;
  /** Tokens start at 8 at each reset, so that they soon gain a digit (lab_kinds.text_epoch). */
  textEpoch: boolean;
  /** A writer's token must be one it was granted in this lab (lab_kinds.own_grant_only). */
  ownGrantOnly: boolean;
  clock: LeaseClock;
  transport: Transport;
  runner: Runner;
  visibility: Visibility;
  story: Story;
};

export type LabDefinition = {
  id: string;
  title: string;
  /** What the lab does differently, in one sentence. */
  summary: string;
  /** How it breaks (empty for a fenced lab). */
  failure: string;
  /** The row the lab's workers write: protected_rows for the fenced lab, unguarded_rows otherwise. */
  table: 'protected_rows' | 'unguarded_rows';
  rowId: number;
  resource: string;
  traits: LabTraits;
  /** The walkthrough to watch after this one's (an id of another kind). */
  compareWith: { lead: string; lab: string; words: string };
  checker: ExpectedVerdict;
  /** The module in lib/model whose steps tell its story, where one of its own exists. */
  narration: string | null;
};

/** Keeps each field's literal type (the id above all), checked against LabDefinition. */
export function defineLab<const T extends LabDefinition>(definition: T): T {
  return definition;
}
