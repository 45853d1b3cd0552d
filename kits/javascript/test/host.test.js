'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { CommandError, EffectError, Host } = require('..');
const { harness } = require('./harness');

test('hello: protocol 1, implementation, capabilities with reset, refreshTriggers, offlinePolicy, http', async () => {
  const runner = harness({
    hello: {
      implementation: { name: 'my-client', version: '2.3.4', language: 'TypeScript', platform: 'node-20' },
      capabilities: ['background-refresh', 'offline-browsing'],
      refreshTriggers: ['unauthorized', 'expiry'],
      offlinePolicy: { cachedResources: ['news'] },
      http: 'loopback',
    },
    createClient: () => ({ perform: async () => null }),
  });
  const hello = await runner.next((line) => line.type === 'hello');
  assert.deepStrictEqual(hello, {
    type: 'hello', protocol: 1,
    implementation: { name: 'my-client', version: '2.3.4', language: 'TypeScript', platform: 'node-20' },
    capabilities: ['background-refresh', 'offline-browsing', 'reset'],
    refreshTriggers: ['unauthorized', 'expiry'],
    offlinePolicy: { cachedResources: ['news'] },
    http: 'loopback',
  });
  const plain = harness({ hello: {}, reset: false, createClient: () => ({ perform: async () => null }) });
  const minimal = await plain.next((line) => line.type === 'hello');
  assert.deepStrictEqual(minimal.capabilities, []);
  assert.strictEqual(minimal.http, undefined, 'message mode is the default');
  assert.strictEqual(minimal.implementation.language, 'JavaScript');
  assert.throws(() => new Host({ hello: { capabilities: ['fork'] }, createClient: () => ({}) }), /does not fork/);
  assert.throws(() => new Host({ hello: { http: 'carrier-pigeon' }, createClient: () => ({}) }), /message.*loopback/);
});

test('effects: replies resume their awaiters; results carry content or the error', async () => {
  let session;
  const runner = harness({
    hello: {},
    createClient: (s) => {
      session = s;
      return {
        async perform(command) {
          if (command.command === 'launch') {
            const stored = await s.storage.get('tokens');
            await s.preferences.set('seen', 'yes');
            return { stored };
          }
          if (command.command === 'signIn') {
            if (!command.email.includes('@')) throw new CommandError('invalidInput', 'Invalid email format');
            await s.storage.set('tokens', 'T', 'whenUnlocked');
            return null;
          }
          throw new Error('boom secret-token');
        },
      };
    },
  });
  await runner.welcome();
  assert.strictEqual(session.seed, 42n);
  assert.deepStrictEqual(session.clock, { wall: 1767225600, monotonic: 0 });
  let round = await runner.round([{ type: 'command', id: 'c1', command: 'launch' }]);
  assert.deepStrictEqual(round, [
    { type: 'storage', op: 'get', key: 'tokens', id: 'e1' },
    { type: 'barrier', id: 'b2' },
  ]);
  round = await runner.round([{ type: 'reply', id: 'e1', value: 'stored-text' }]);
  assert.deepStrictEqual(round[0], { type: 'preferences', op: 'set', key: 'seen', value: 'yes', id: 'e2' });
  round = await runner.round([{ type: 'reply', id: 'e2' }]);
  assert.deepStrictEqual(round, [
    { type: 'result', id: 'c1', outcome: 'ok', content: { stored: 'stored-text' } },
    { type: 'barrier', id: 'b4' },
  ]);
  round = await runner.round([{ type: 'command', id: 'c2', command: 'signIn', email: 'nope', password: 'x' }]);
  assert.deepStrictEqual(round[0], { type: 'result', id: 'c2', outcome: 'error', error: { code: 'invalidInput', message: 'Invalid email format', definite: true } });
  round = await runner.round([{ type: 'command', id: 'c3', command: 'signIn', email: 'a@b', password: 'x' }]);
  assert.deepStrictEqual(round[0], { type: 'storage', op: 'set', key: 'tokens', value: 'T', accessibility: 'whenUnlocked', id: 'e3' });
  round = await runner.round([{ type: 'reply', id: 'e3', error: { code: 'locked', definite: true } }]);
  assert.deepStrictEqual(round[0], { type: 'result', id: 'c3', outcome: 'error', error: { code: 'locked', message: 'locked', definite: true } });
  round = await runner.round([{ type: 'command', id: 'c4', command: 'lock' }]);
  assert.deepStrictEqual(round[0], { type: 'result', id: 'c4', outcome: 'error', error: { code: 'internalError', message: 'internalError', definite: true } });
  assert.doesNotMatch(runner.stderr.join(''), /secret/, 'an unknown error is noted by type only');
  assert.match(runner.stderr.join(''), /a command failed with Error/);
  assert.ok(new EffectError('locked', true, 'storage') instanceof Error);
});

test('barrier: answered only when the client is idle (promise chains, immediates, real timers)', async () => {
  const runner = harness({
    hello: {},
    createClient: (s) => ({
      async perform(command) {
        if (command.command === 'foreground') {
          for (let i = 0; i < 50; i += 1) await null; // a long promise chain
          await new Promise((resolve) => setImmediate(resolve));
          await new Promise((resolve) => setTimeout(resolve, 40)); // a real timer: runnable work, not waiting
          await new Promise((resolve) => process.nextTick(resolve));
          s.log('info', 'after the timer');
          return s.preferences.get('x');
        }
        return null;
      },
    }),
  });
  await runner.welcome();
  const round = await runner.round([{ type: 'command', id: 'c1', command: 'foreground' }]);
  assert.deepStrictEqual(round.map((line) => line.type), ['log', 'preferences', 'barrier']);
});

test('barrier: a client waiting for an effect or a sleep is idle; the sleep resolves when the runner replies', async () => {
  let woke = null;
  const runner = harness({
    hello: {},
    createClient: (s) => ({
      async perform() {
        const sleep = s.sleep(30);
        const early = s.sleep(5);
        early.wake();
        woke = await early.done;
        const reached = await sleep.done;
        return { reached };
      },
    }),
  });
  await runner.welcome();
  let round = await runner.round([{ type: 'command', id: 'c1', command: 'backgroundRefresh' }]);
  assert.deepStrictEqual(round, [
    { type: 'sleep', id: 'e1', seconds: 30 },
    { type: 'sleep', id: 'e2', seconds: 5 },
    { type: 'abandon', id: 'e2', reason: 'cancelled' },
    { type: 'barrier', id: 'b2' },
  ]);
  assert.strictEqual(woke, false);
  round = await runner.round([{ type: 'clock', wall: 1767225630, monotonic: 30 }, { type: 'reply', id: 'e2' }, { type: 'reply', id: 'e1' }]);
  assert.deepStrictEqual(round, [{ type: 'result', id: 'c1', outcome: 'ok', content: { reached: true } }, { type: 'barrier', id: 'b3' }]);
});

test('reset: a new instance says hello; the old one reaches nobody', async () => {
  const clients = [];
  const runner = harness({
    hello: { implementation: { name: 'c', version: '1' } },
    createClient: (s) => {
      const client = {
        session: s,
        disposed: false,
        dispose() { this.disposed = true; },
        async perform(command) {
          const value = await s.storage.get('k');
          return { command: command.command, value };
        },
      };
      clients.push(client);
      return client;
    },
  });
  await runner.welcome();
  await runner.round([{ type: 'command', id: 'c1', command: 'launch' }]);
  const from = runner.lines.length;
  runner.send({ type: 'reset' });
  const hello = await runner.next((line) => line.type === 'hello', from);
  assert.deepStrictEqual(hello.capabilities, ['reset']);
  assert.strictEqual(clients[0].disposed, true);
  let round = await runner.welcome({ seed: '7' });
  assert.strictEqual(clients.length, 2);
  assert.strictEqual(clients[1].session.seed, 7n);
  // The old instance's effect e1 is gone: a reply to e1 now names the new instance's effect only if it sent one.
  round = await runner.round([{ type: 'command', id: 'c1', command: 'launch' }]);
  assert.deepStrictEqual(round[0], { type: 'storage', op: 'get', key: 'k', id: 'e1' });
  clients[0].session.log('info', 'from the old instance');
  round = await runner.round([{ type: 'reply', id: 'e1', value: 'v' }]);
  assert.deepStrictEqual(round, [{ type: 'result', id: 'c1', outcome: 'ok', content: { command: 'launch', value: 'v' } }, { type: 'barrier', id: 'b5' }]);
});

test('session: the seeded generator repeats for a seed; cause() follows the command across awaits', async () => {
  const draws = [];
  const causes = [];
  const runner = harness({
    hello: {},
    createClient: (s) => {
      draws.push([s.random(), s.random()]);
      return {
        async perform() {
          causes.push(s.cause());
          await s.preferences.get('x');
          causes.push(s.cause());
          s.detached(() => causes.push(s.cause()));
          return null;
        },
      };
    },
  });
  await runner.welcome({ seed: '18446744073709551615' });
  runner.send({ type: 'reset' });
  await runner.welcome({ seed: '18446744073709551615' });
  assert.deepStrictEqual(draws[0], draws[1]);
  assert.ok(draws[0][0] >= 0 && draws[0][0] < 1 && draws[0][0] !== draws[0][1]);
  await runner.round([{ type: 'command', id: 'c9', command: 'request', resource: 'inbox' }]);
  await runner.round([{ type: 'reply', id: 'e1', value: null }]);
  assert.deepStrictEqual(causes, ['c9', 'c9', undefined]);
});
