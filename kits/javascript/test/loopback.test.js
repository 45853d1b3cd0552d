'use strict';
// Loopback mode against a local HTTP server standing for the runner's: requests counted started and finished
// for the barrier, X-Conformance-Cause, deadlines through tags, for fetch and for axios.
const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const { harness } = require('./harness');

/** Debian's node-axios, found through NODE_PATH=/usr/share/nodejs (or an npm-installed axios); null if absent. */
function loadAxios() {
  try {
    return require('axios');
  } catch (error) {
    return null;
  }
}
const axios = loadAxios();
const requireTools = process.env.SESSION_CONFORMANCE_REQUIRE_TOOLS === '1';

/** A server that holds every request until the test releases it. */
async function worldServer() {
  const held = [];
  const arrivals = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      held.push({ request, response, body });
      arrivals.splice(0).forEach((resolve) => resolve());
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    held,
    baseURL: `http://127.0.0.1:${server.address().port}`,
    async untilReceived(count) {
      while (held.length < count) await new Promise((resolve) => arrivals.push(resolve));
    },
    answer(index, status, body) {
      const { response } = held[index];
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

function resourceClient(makeRequest) {
  return (s) => ({
    async perform(command) {
      try {
        const [inbox, me] = await Promise.all([makeRequest(s, `/resources/${command.resource}`), makeRequest(s, '/me')]);
        s.ui('content', { resource: command.resource, contentId: inbox.contentId });
        return { inbox, me };
      } catch (error) {
        return { failed: error.name, code: error.code };
      }
    },
  });
}

async function countedExchange(t, makeRequest) {
  const world = await worldServer();
  t.after(() => world.close());
  const runner = harness({ hello: { http: 'loopback' }, createClient: resourceClient(makeRequest) });
  await runner.welcome({ http: { baseURL: world.baseURL } });
  let round = await runner.round([{ type: 'command', id: 'c1', command: 'request', resource: 'inbox' }], { httpAnswered: 0 });
  assert.deepStrictEqual(round, [{ type: 'barrier', id: 'b2', httpStarted: 2 }]);
  await world.untilReceived(2);
  for (const { request } of world.held) {
    assert.strictEqual(request.headers['x-conformance-cause'], 'c1');
  }
  const inboxIndex = world.held.findIndex((h) => h.request.url === '/resources/inbox');
  world.answer(inboxIndex, 200, { contentId: 'content-1' });
  // One response sent: the barrier waits for it, and the client still waits for the other.
  round = await runner.round([], { httpAnswered: 1 });
  assert.deepStrictEqual(round, [{ type: 'barrier', id: 'b3', httpStarted: 2 }]);
  world.answer(1 - inboxIndex, 200, { account_id: 'acct-alice' });
  round = await runner.round([], { httpAnswered: 2 });
  assert.deepStrictEqual(round, [
    { type: 'ui', resource: 'inbox', contentId: 'content-1', event: 'content' },
    { type: 'result', id: 'c1', outcome: 'ok', content: { inbox: { contentId: 'content-1' }, me: { account_id: 'acct-alice' } } },
    { type: 'barrier', id: 'b4', httpStarted: 2 },
  ]);
  assert.strictEqual(runner.host.session.httpFinished, 2);
}

async function deadlineExpires(t, makeRequest, expected) {
  const world = await worldServer();
  t.after(() => world.close());
  const runner = harness({ hello: { http: 'loopback' }, createClient: resourceClient(makeRequest) });
  await runner.welcome({ http: { baseURL: world.baseURL } });
  let round = await runner.round([{ type: 'command', id: 'c1', command: 'request', resource: 'inbox' }], { httpAnswered: 0 });
  assert.deepStrictEqual(round.map((line) => [line.type, line.id]), [['sleep', 'e1'], ['sleep', 'e2'], ['barrier', 'b2']]);
  assert.strictEqual(round[2].httpStarted, 2);
  await world.untilReceived(2);
  const tags = world.held.map((h) => h.request.headers['x-conformance-request']);
  assert.deepStrictEqual(tags.sort(), ['r1', 'r2']);
  const meIndex = world.held.findIndex((h) => h.request.url === '/me');
  world.answer(meIndex, 200, { account_id: 'acct-alice' });
  // Both deadlines reached in the round that delivers /me's response: /me wins, the held resource is given up.
  round = await runner.round([{ type: 'clock', wall: 1767225610, monotonic: 10 }, { type: 'reply', id: 'e1' }, { type: 'reply', id: 'e2' }], { httpAnswered: 1 });
  const inboxTag = world.held[1 - meIndex].request.headers['x-conformance-request'];
  assert.deepStrictEqual(round, [
    { type: 'abandon', id: inboxTag, reason: 'timeout' },
    { type: 'result', id: 'c1', outcome: 'ok', content: expected },
    { type: 'barrier', id: 'b3', httpStarted: 2 },
  ]);
  assert.strictEqual(runner.host.session.httpFinished, 1, 'the abandoned request is never counted finished');
}

const viaFetch = async (s, path) => (await s.fetch(path, { headers: { accept: 'application/json' } })).json();
const viaFetchWithDeadline = async (s, path) => (await s.fetch(path, { deadline: 10 })).json();

test('fetch: counted for the barrier, X-Conformance-Cause added, tagged', (t) => countedExchange(t, viaFetch));

test('fetch: a deadline abandons the tag and aborts; a response of the same round wins',
  (t) => deadlineExpires(t, viaFetchWithDeadline, { failed: 'TimeoutError', code: 'ETIMEDOUT' }));

function axiosRequest(deadline) {
  const instances = new WeakMap();
  return async (s, path) => {
    if (!instances.has(s)) {
      instances.set(s, s.instrumentAxios(axios.create({ maxRedirects: 0 }), { axios, deadline }));
    }
    return (await instances.get(s).get(path)).data;
  };
}

test('axios: counted through the agent, X-Conformance-Cause from the interceptor', { skip: !axios && !requireTools && 'axios not installed (Debian: node-axios)' },
  (t) => {
    assert.ok(axios, 'axios is required (SESSION_CONFORMANCE_REQUIRE_TOOLS=1)');
    return countedExchange(t, axiosRequest(null));
  });

test('axios: a deadline abandons the tag, aborts, and fails as axios\'s timeout (ECONNABORTED)', { skip: !axios && !requireTools && 'axios not installed (Debian: node-axios)' },
  (t) => {
    assert.ok(axios, 'axios is required (SESSION_CONFORMANCE_REQUIRE_TOOLS=1)');
    return deadlineExpires(t, axiosRequest(10), { failed: 'AxiosError', code: 'ECONNABORTED' });
  });
