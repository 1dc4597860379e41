import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closedInWords } from './lab-closed-words';

const closed = (reason?: string) => ({ kind: 'lab_closed', detail: reason === undefined ? {} : { reason } });

test('a closed lab says who or what closed it, from the recorded reason', () => {
  assert.equal(closedInWords([closed('closed by its owner')]), 'Its owner closed this private lab.');
  assert.equal(
    closedInWords([closed('idle for 30 minutes')]),
    'This private lab closed itself after 30 minutes with nobody using it.',
  );
  assert.equal(closedInWords([closed('the sweep run ended')]), 'This private lab was closed: the sweep run ended.');
  assert.equal(closedInWords([]), 'This private lab was closed.');
  assert.equal(
    closedInWords([
      closed('idle for 30 minutes'),
      { kind: 'write_accepted', detail: {} },
      closed('closed by its owner'),
    ]),
    'Its owner closed this private lab.',
    'the last closing counts',
  );
});
