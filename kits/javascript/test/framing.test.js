'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { LineDecoder, ProtocolError } = require('..');
const { harness } = require('./harness');

const messages = [
  { type: 'command', id: 'c1', command: 'signIn', email: 'zoë@example.com', password: 'pässwörd ✓ 🔑' },
  { type: 'reply', id: 'e1', value: '{"a":"b\\nc"}' },
  { type: 'barrier', id: 'b1', httpAnswered: 3 },
];
const bytes = Buffer.from(messages.map((m) => JSON.stringify(m) + '\n').join(''), 'utf8');

function decodeIn(chunks) {
  const decoder = new LineDecoder();
  const out = [];
  for (const chunk of chunks) out.push(...decoder.push(chunk));
  decoder.end();
  return out;
}

test('framing: the whole input at once', () => {
  assert.deepStrictEqual(decodeIn([bytes]), messages);
});

test('framing: byte by byte, multi-byte characters split', () => {
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 1) chunks.push(bytes.subarray(i, i + 1));
  assert.deepStrictEqual(decodeIn(chunks), messages);
});

test('framing: random chunks, many times', () => {
  let seed = 7;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let round = 0; round < 200; round += 1) {
    const chunks = [];
    let at = 0;
    while (at < bytes.length) {
      const size = 1 + Math.floor(random() * 40);
      chunks.push(bytes.subarray(at, at + size));
      at += size;
    }
    assert.deepStrictEqual(decodeIn(chunks), messages);
  }
});

test('framing: blank lines are skipped, CRLF tolerated', () => {
  assert.deepStrictEqual(decodeIn(['\n', '{"type":"clock","wall":1,"monotonic":2}\r\n', '\n']), [{ type: 'clock', wall: 1, monotonic: 2 }]);
});

test('framing: garbage is a ProtocolError that never quotes the input', () => {
  const cases = [
    ['{"type":"reply","value":"secret-token-123"', /line 1 is not JSON/],
    ['[1,2]', /line 1 is not a JSON object/],
    ['"secret-token-123"', /line 1 is not a JSON object/],
    ['{"value":"secret-token-123"}', /line 1 has no "type"/],
  ];
  for (const [line, expected] of cases) {
    const decoder = new LineDecoder();
    assert.throws(() => decoder.push(line + '\n'), (error) => {
      assert.ok(error instanceof ProtocolError);
      assert.match(error.message, expected);
      assert.doesNotMatch(error.message, /secret/);
      return true;
    });
  }
  assert.throws(() => new LineDecoder().push(Buffer.from([0x7b, 0xff, 0x7d, 0x0a])), /line 1 is not UTF-8/);
  assert.throws(() => new LineDecoder({ maxLine: 16 }).push('{"type":"x","pad":"0123456789"}\n'), /longer than 16 bytes/);
  assert.throws(() => new LineDecoder({ maxLine: 16 }).push('{"type":"x","pad":"0123456789"'), /longer than 16 bytes/);
  const unterminated = new LineDecoder();
  unterminated.push('{"type":"clock"');
  assert.throws(() => unterminated.end(), /ends without a newline/);
});

test('host: garbage input stops the adapter with a clear error (exit 3), the line not echoed', async () => {
  const runner = harness({ hello: {}, createClient: () => ({ perform: async () => null }) });
  runner.input.write('this is not json secret-token-9\n');
  assert.strictEqual(await runner.exited, 3);
  assert.match(runner.stderr.join(''), /protocol error: line 1 is not JSON/);
  assert.doesNotMatch(runner.stderr.join(''), /secret/);
});

test('host: an unknown message type is a protocol error', async () => {
  const runner = harness({ hello: {}, createClient: () => ({ perform: async () => null }) });
  runner.send({ type: 'welcome', protocol: 1, seed: '1', clock: { wall: 0, monotonic: 0 } }, { type: 'teleport' });
  assert.strictEqual(await runner.exited, 3);
  assert.match(runner.stderr.join(''), /unknown message type "teleport"/);
});

test('host: a command before welcome is a protocol error', async () => {
  const runner = harness({ hello: {}, createClient: () => ({ perform: async () => null }) });
  runner.send({ type: 'command', id: 'c1', command: 'launch' });
  assert.strictEqual(await runner.exited, 3);
  assert.match(runner.stderr.join(''), /a command before welcome/);
});

test('host: the runner refusing the handshake exits 2; the end of input exits 0', async () => {
  const refused = harness({ hello: {}, createClient: () => ({ perform: async () => null }) });
  refused.send({ type: 'error', code: 'protocol-version', message: 'no', definite: true });
  assert.strictEqual(await refused.exited, 2);
  assert.match(refused.stderr.join(''), /refused the adapter: "protocol-version"/);
  const ended = harness({ hello: {}, createClient: () => ({ perform: async () => null }) });
  ended.input.end();
  assert.strictEqual(await ended.exited, 0);
});
