import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKED_SETTINGS, parseRoomSettings, settingDefaults, settingsProblems } from './room-settings';

test('unset, empty and usable settings are no problem', () => {
  assert.deepEqual(settingsProblems({}), []);
  assert.deepEqual(
    settingsProblems({
      FENCING_LAB_MAX_PRIVATE_LABS: '300',
      FENCING_LAB_IDLE_MINUTES: '0.5',
      FENCING_LAB_WARM_WORKERS: '0',
      FENCING_LAB_MAX_GUARD_ATTACKS: '64',
      FENCING_LAB_MAX_FEEDS: '',
    }),
    [],
  );
});

test('each unusable value is refused by name, with what it must be and what it got', () => {
  assert.deepEqual(settingsProblems({ FENCING_LAB_MAX_PRIVATE_LABS: 'lots' }), [
    'FENCING_LAB_MAX_PRIVATE_LABS must be a whole number from 1 to 999999 (got "lots")',
  ]);
  assert.deepEqual(settingsProblems({ FENCING_LAB_MAX_GUARD_ATTACKS: '65' }), [
    'FENCING_LAB_MAX_GUARD_ATTACKS must be a whole number from 1 to 64 (got "65")',
  ]);
  assert.deepEqual(settingsProblems({ FENCING_LAB_IDLE_MINUTES: '0' }), [
    'FENCING_LAB_IDLE_MINUTES must be a positive number of minutes (got "0")',
  ]);
  const several = settingsProblems({
    FENCING_LAB_OPENS_PER_ADDRESS: '-3',
    FENCING_LAB_WARM_WORKERS: '9',
    FENCING_LAB_RETENTION_HOURS: '1e9',
    FENCING_LAB_MAX_FEEDS: '2.5',
  });
  assert.equal(several.length, 4, several.join('\n'));
});

test('a value is usable only as written: the readers at run time trim nothing', () => {
  for (const raw of [' 4', '4 ', ' ', '008']) {
    assert.equal(settingsProblems({ FENCING_LAB_WARM_WORKERS: raw }).length, 1, JSON.stringify(raw));
  }
  assert.equal(settingsProblems({ PORT: ' ' }).length, 1, 'a port of spaces is not port 0');
});

test('every checked setting has a row in the settings table', async () => {
  const { readFile } = await import('node:fs/promises');
  const doc = await readFile(new URL('../../../docs/running-a-room.md', import.meta.url), 'utf8');
  for (const name of CHECKED_SETTINGS) assert.match(doc, new RegExp(`\\| \`${name}\` \\|`), name);
});

test('the port and the trainer key are checked too, and a key is never echoed back', () => {
  assert.deepEqual(settingsProblems({ PORT: '70000' }), ['PORT must be a whole number from 1 to 65535 (got "70000")']);
  const [short] = settingsProblems({ FENCING_LAB_TRAINER_KEY: 'letmein' });
  assert.match(short ?? '', /^FENCING_LAB_TRAINER_KEY must be at least 12 characters \(it has 7\)/);
  assert.doesNotMatch(short ?? '', /letmein/);
  assert.deepEqual(settingsProblems({ PORT: '3000', FENCING_LAB_TRAINER_KEY: 'a-long-enough-key' }), []);
});

test('parsed once into one typed object: every default where unset or empty, every usable value as a number', () => {
  const { settings, problems } = parseRoomSettings({ FENCING_LAB_MAX_FEEDS: '', PORT: '3210' }, { cpus: 2 });
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    ...settingDefaults({ cpus: 2 }),
    port: 3210,
    trainerKey: undefined,
    workerHost: undefined,
  });
  assert.equal(settings.maxFeeds, 400);
  assert.equal(settings.maxGuardAttacks, 4, 'two per CPU, at most 4');
  assert.equal(parseRoomSettings({}, { cpus: 1 }).settings.warmWorkers, 1, 'one warm worker per CPU, at most 2');
  const set = parseRoomSettings(
    {
      FENCING_LAB_IDLE_MINUTES: '0.5',
      FENCING_LAB_WARM_WORKERS: '0',
      FENCING_LAB_TRAINER_KEY: '  a-long-enough-key  ',
      FENCING_LAB_GUARD_REFUSALS_PER_MINUTE: '40',
    },
    { cpus: 2 },
  ).settings;
  assert.deepEqual(
    [set.idleMinutes, set.warmWorkers, set.trainerKey, set.guardRefusalsPerMinute],
    [0.5, 0, 'a-long-enough-key', 40],
  );
  // Each schema entry reaches the object: a setting added to the schema without a field fails here.
  const HOSTS: Record<string, [string, unknown]> = {
    HOST: ['10.1.2.3', '10.1.2.3'],
    FENCING_LAB_WORKER_HOST: ['[2001:db8::7]', '[2001:db8::7]'],
    FENCING_LAB_ALLOWED_HOSTS: ['lab.example.org, proxy:8080', ['lab.example.org', 'proxy:8080']],
    FENCING_LAB_TRUSTED_PROXIES: ['10.9.9.9, ::1', ['10.9.9.9', '::1']],
  };
  for (const name of CHECKED_SETTINGS) {
    const [raw, value] = HOSTS[name] ?? [
      name === 'FENCING_LAB_TRAINER_KEY' ? 'a-long-enough-key' : name === 'PORT' ? '4321' : '7',
      undefined,
    ];
    const parsed = parseRoomSettings({ [name]: raw }, { cpus: 2 });
    assert.deepEqual(parsed.problems, [], name);
    const wanted = value ?? (name === 'FENCING_LAB_TRAINER_KEY' ? raw : Number(raw));
    assert.ok(
      Object.values(parsed.settings).some((v) => JSON.stringify(v) === JSON.stringify(wanted)),
      name,
    );
  }
  const bad = parseRoomSettings({ FENCING_LAB_MAX_FEEDS: 'lots' }, { cpus: 2 });
  assert.equal(bad.problems.length, 1, 'the caller is told; it must not use the default in silence');
});

test('host names and addresses: a list is split at commas and trimmed, each entry checked, each bad one named', () => {
  const { settings } = parseRoomSettings(
    {
      HOST: '0.0.0.0',
      FENCING_LAB_ALLOWED_HOSTS: ' lab.example.org ,, [::1]:3000 ',
      FENCING_LAB_WORKER_HOST: '192.168.1.20',
    },
    { cpus: 2 },
  );
  assert.deepEqual(
    [settings.listenHost, settings.allowedHosts, settings.workerHost, settings.trustedProxies],
    ['0.0.0.0', ['lab.example.org', '[::1]:3000'], '192.168.1.20', []],
  );
  assert.equal(parseRoomSettings({}, { cpus: 2 }).settings.listenHost, '127.0.0.1', 'loopback unless told otherwise');
  assert.deepEqual(
    settingsProblems({
      HOST: 'my host',
      FENCING_LAB_ALLOWED_HOSTS: 'a.example;b.example',
      FENCING_LAB_TRUSTED_PROXIES: '10.0.0.1, proxy.example',
      FENCING_LAB_WORKER_HOST: 'http://x',
    }),
    [
      'HOST must be a host name or an IP address (got "my host")',
      'FENCING_LAB_ALLOWED_HOSTS must be host names (each may end in :port), comma-separated: "a.example;b.example" is not (got "a.example;b.example")',
      'FENCING_LAB_TRUSTED_PROXIES must be IP addresses, comma-separated: "proxy.example" is not (got "10.0.0.1, proxy.example")',
      'FENCING_LAB_WORKER_HOST must be a host name or an IP address (got "http://x")',
    ],
  );
  assert.equal(settingsProblems({ FENCING_LAB_ALLOWED_HOSTS: 'lab:99999' }).length, 1, 'a port past 65535');
});
