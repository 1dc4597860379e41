import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runScenario } from '../testing/run-scenario';

describe('npm run scenario -- pause', () => {
  test("prints the seed's story with real tokens and exits 0 on the safe outcome", async () => {
    const { code, stdout, stderr } = await runScenario(['pause']);
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 6, stdout);
    const first = lines[0]?.match(/^term (\d+) token \1 -> write accepted \(A wrote "A-1"\)$/);
    const second = lines[1]?.match(/^lease expires, term (\d+) token \1 -> write accepted \(B wrote "B-1"\)$/);
    assert.ok(first && second, stdout);
    const [a, b] = [Number(first[1]), Number(second[1])];
    assert.ok(b > a, 'the takeover got a newer token');
    assert.equal(lines[2], `old holder resumes -> write token ${a} -> rejected (stale: row holds token ${b})`);
    assert.equal(lines[3], `final: protected_rows row 1 value "B-1" last_token ${b}`);
    assert.match(lines[4] ?? '', /^checker: no violation in \d+ accepted writes and \d+ grants$/);
    assert.match(lines[5] ?? '', /^safe: /);
  });

  test('--json prints the same story as JSON lines, tokens as numbers', async () => {
    const { code, stdout, stderr } = await runScenario(['pause', '--json']);
    assert.equal(code, 0, stderr);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => line.step),
      ['first-holder-writes', 'takeover-writes', 'old-holder-resumes', 'final', 'checker', 'verdict'],
    );
    const [first, second, late, final, checker, verdict] = lines;
    assert.equal(checker.ok, true);
    assert.equal(typeof first.token, 'number');
    assert.deepEqual([first.outcome, second.outcome, late.outcome], ['accepted', 'accepted', 'stale']);
    assert.equal(late.storedToken, second.token);
    assert.deepEqual([final.value, final.lastToken], ['B-1', second.token]);
    assert.equal(verdict.safe, true);
  });

  test('the two newer broken labs exit 1, naming what went wrong, in text and in --json', async () => {
    const sameToken = await runScenario(['same-token-takeover']);
    assert.equal(sameToken.code, 1, sameToken.stderr);
    assert.match(
      sameToken.stdout,
      /^checker: token-granted-twice: token (\d+) granted twice: to A at .* and to B at /m,
    );
    assert.match(sameToken.stdout, /^UNSAFE \(A takeover without a new token\): lost update: /m);
    const drift = await runScenario(['drifting-clock', '--json']);
    assert.equal(drift.code, 1, drift.stderr);
    const lines = drift.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.filter((l) => l.step !== 'violation').map((l) => l.step),
      ['first-holder-writes', 'takeover-writes', 'slow-clock-writes', 'final', 'checker', 'verdict'],
    );
    assert.deepEqual(
      lines.filter((l) => l.step === 'violation').map((l) => l.kinds),
      [['token-went-back', 'superseded-holder', 'write-after-expiry']],
    );
    const late = lines.find((l) => l.step === 'slow-clock-writes');
    assert.equal(late.outcome, 'accepted');
    assert.ok(late.lateByMs > 0, "A's write came after the database's expiry");
    assert.equal(lines.at(-1).safe, false);
  });

  test('the delayed packet: fenced exits 0 with the held write rejected, unfenced exits 1 naming the lost update (--json)', async () => {
    const fenced = await runScenario(['delayed-packet']);
    assert.equal(fenced.code, 0, fenced.stderr);
    assert.match(fenced.stdout, /^the proxy holds A's connection: A sent "A-2" with token \d+/m);
    assert.match(
      fenced.stdout,
      /^released: PostgreSQL receives A's write \d+ ms after A sent it, .* -> rejected \(stale: row holds token \d+\)$/m,
    );
    assert.match(fenced.stdout, /^safe: A's delayed write with token \d+ arrived \d+ ms late and was rejected/m);
    const unfenced = await runScenario(['delayed-packet-unfenced', '--json']);
    assert.equal(unfenced.code, 1, unfenced.stderr);
    const lines = unfenced.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.filter((l) => l.step !== 'violation').map((l) => l.step),
      ['first-holder-writes', 'write-held', 'takeover-writes', 'held-write-arrives', 'final', 'checker', 'verdict'],
    );
    assert.deepEqual(
      lines.filter((l) => l.step === 'violation').map((l) => l.kinds),
      [['token-went-back', 'superseded-holder', 'write-after-expiry']],
    );
    const arrived = lines.find((l) => l.step === 'held-write-arrives');
    assert.equal(arrived.outcome, 'accepted');
    assert.ok(arrived.heldMs > 0 && arrived.lateByMs > 0, 'held on the wire, received after the expiry');
    assert.equal(lines.at(-1).safe, false);
  });

  test('the delayed packet with --retry: fenced, the retry and the held write are both rejected; unfenced, one write lands twice', async () => {
    const fenced = await runScenario(['delayed-packet', '--retry']);
    assert.equal(fenced.code, 0, fenced.stderr);
    assert.match(
      fenced.stdout,
      /^A's client gives up after 4000 ms and sends "A-2" again with token (\d+) on a new connection -> rejected \(stale: row holds token \d+\)$/m,
    );
    assert.match(
      fenced.stdout,
      /^released: PostgreSQL receives the first "A-2" too, \d+ ms after A sent it -> rejected/m,
    );
    const unfenced = await runScenario(['delayed-packet-unfenced', '--retry']);
    assert.equal(unfenced.code, 1, unfenced.stderr);
    assert.match(unfenced.stdout, /on a new connection -> accepted$/m);
    assert.match(unfenced.stdout, /^released: PostgreSQL receives the first "A-2" too, .* -> accepted$/m);
    assert.match(
      unfenced.stdout,
      /^checker: [a-z, -]*write-after-expiry: .* — .*sent while its lease ran, received after it ran out$/m,
    );
    // The evidence under it, indented: one violation per stale write, each rule it broke said in full.
    assert.match(
      unfenced.stdout,
      /^ {2}A wrote .*: a stale write accepted after its lease expired \(sent at .*, while the lease still ran/m,
    );
    assert.match(unfenced.stdout, /^UNSAFE \(A delayed packet, unfenced\): lost update: .* "A-2" applied twice$/m);
    const misused = await runScenario(['pause', '--retry']);
    assert.equal(misused.code, 2);
    assert.match(misused.stderr, /--retry is for the delayed-packet scenarios only/);
  });

  test('no database reachable: a clear message and a non-zero exit', async () => {
    const { code, stdout, stderr } = await runScenario(['pause'], {
      ...process.env,
      DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/nothing',
    });
    assert.equal(code, 3);
    assert.equal(stdout, '');
    assert.match(stderr, /^no database reachable \(connect ECONNREFUSED 127\.0\.0\.1:1\)/);
    assert.doesNotMatch(stderr, /secret/, 'the password is not printed');
  });

  test('an unknown scenario or option: usage and exit 2', async () => {
    const unknown = await runScenario(['pasue']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^usage: npm run scenario -- <pause\|no-fencing\|[a-z|-]+> \[--json\]\n/);
    assert.match(unknown.stderr, /\nunknown scenario "pasue"\n?$/);
    const badFlag = await runScenario(['pause', '--jsn']);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /\nunknown option --jsn\n?$/);
    const clockElsewhere = await runScenario(['pause', '--lease-clock', 'database']);
    assert.equal(clockElsewhere.code, 2);
    assert.match(clockElsewhere.stderr, /\n--lease-clock is for the drifting-clock scenarios only\n?$/);
    const badClock = await runScenario(['drifting-clock', '--lease-clock', 'ntp']);
    assert.equal(badClock.code, 2);
    assert.match(badClock.stderr, /\n--lease-clock must be one of own, database\n?$/);
  });
});
