'use strict';
// The deadline recipe in message mode: an `http` effect raced against a `sleep`, the loser abandoned; the round's
// barrier decides, and in one round the reply wins.
const test = require('node:test');
const assert = require('node:assert');
const { DeadlineExceeded } = require('..');
const { harness } = require('./harness');

function client() {
  return harness({
    hello: {},
    createClient: (s) => ({
      async perform(command) {
        try {
          const response = await s.http({ method: 'POST', path: '/auth/refresh', headers: {}, body: { refresh_token: 'x' } }, { deadline: 30 });
          return { status: response.status };
        } catch (error) {
          if (error instanceof DeadlineExceeded) return { timedOut: true, definite: error.definite };
          throw error;
        }
      },
    }),
  });
}

async function started(runner) {
  await runner.welcome();
  const round = await runner.round([{ type: 'command', id: 'c1', command: 'backgroundRefresh' }]);
  assert.deepStrictEqual(round, [
    { type: 'http', id: 'e1', request: { method: 'POST', path: '/auth/refresh', headers: {}, body: { refresh_token: 'x' } }, cause: 'c1' },
    { type: 'sleep', id: 'e2', seconds: 30 },
    { type: 'barrier', id: 'b2' },
  ]);
}

const ok = { type: 'reply', id: 'e1', response: { status: 200, headers: {}, body: {} } };
const deadline = { type: 'reply', id: 'e2' };

test('deadline: the reply first; the sleep is abandoned ("answered") at the barrier', async () => {
  const runner = client();
  await started(runner);
  const round = await runner.round([ok]);
  assert.deepStrictEqual(round, [
    { type: 'result', id: 'c1', outcome: 'ok', content: { status: 200 } },
    { type: 'abandon', id: 'e2', reason: 'answered' },
    { type: 'barrier', id: 'b3' },
  ]);
  assert.deepStrictEqual(await runner.round([deadline]), [{ type: 'barrier', id: 'b4' }], 'a late sleep reply is dropped');
});

test('deadline: the sleep first; the request is abandoned ("timeout") and fails indefinite', async () => {
  const runner = client();
  await started(runner);
  const round = await runner.round([{ type: 'clock', wall: 1767225630, monotonic: 30 }, deadline]);
  assert.deepStrictEqual(round, [
    { type: 'abandon', id: 'e1', reason: 'timeout' },
    { type: 'result', id: 'c1', outcome: 'ok', content: { timedOut: true, definite: false } },
    { type: 'barrier', id: 'b3' },
  ]);
  assert.deepStrictEqual(await runner.round([ok]), [{ type: 'barrier', id: 'b4' }], 'a reply that crossed the abandon is dropped');
});

test('deadline: reply and deadline in the same round, either order: the reply wins, nothing is abandoned', async () => {
  for (const order of [[ok, deadline], [deadline, ok]]) {
    const runner = client();
    await started(runner);
    const round = await runner.round([{ type: 'clock', wall: 1767225630, monotonic: 30 }, ...order]);
    assert.deepStrictEqual(round, [
      { type: 'result', id: 'c1', outcome: 'ok', content: { status: 200 } },
      { type: 'barrier', id: 'b3' },
    ]);
  }
});

test('deadline: fetch in message mode is an http effect; init.deadline abandons it', async () => {
  const runner = harness({
    hello: {},
    createClient: (s) => ({
      async perform(command) {
        if (command.command === 'signIn') {
          const response = await s.fetch('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: command.email }) });
          return { status: response.status, body: await response.json() };
        }
        try {
          await s.fetch(`/resources/${command.resource}`, { headers: { authorization: 'Bearer t' }, deadline: 10 });
          return 'answered';
        } catch (error) {
          return { name: error.name };
        }
      },
    }),
  });
  await runner.welcome();
  let round = await runner.round([{ type: 'command', id: 'c1', command: 'signIn', email: 'a@b' }]);
  assert.deepStrictEqual(round[0], { type: 'http', id: 'e1', cause: 'c1', request: { method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json' }, body: { email: 'a@b' } } });
  round = await runner.round([{ type: 'reply', id: 'e1', response: { status: 200, headers: {}, body: { access_token: 'at' } } }]);
  assert.deepStrictEqual(round[0], { type: 'result', id: 'c1', outcome: 'ok', content: { status: 200, body: { access_token: 'at' } } });
  round = await runner.round([{ type: 'command', id: 'c2', command: 'request', resource: 'inbox' }]);
  assert.deepStrictEqual(round.map((l) => [l.type, l.id]), [['sleep', 'e2'], ['http', 'e3'], ['barrier', 'b4']]);
  assert.deepStrictEqual(round[1].request.headers, { authorization: 'Bearer t' });
  round = await runner.round([{ type: 'reply', id: 'e2' }]);
  assert.deepStrictEqual(round, [
    { type: 'abandon', id: 'e3', reason: 'timeout' },
    { type: 'result', id: 'c2', outcome: 'ok', content: { name: 'TimeoutError' } },
    { type: 'barrier', id: 'b5' },
  ]);
});
