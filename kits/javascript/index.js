'use strict';
/**
 * session-conformance-kit: the protocol v1 host for adapters written in JavaScript (Node 18+).
 *
 *   const { runAdapter } = require('session-conformance-kit');
 *   runAdapter({ hello: { implementation: {...}, http: 'loopback' }, createClient: (session) => new MyGlue(session) });
 *
 * The major version is the protocol version the kit speaks. See README.md.
 */

const { Host, PROTOCOL } = require('./lib/host');
const { Session, Sleep, Deadline } = require('./lib/session');
const { CommandError, EffectError, DeadlineExceeded } = require('./lib/errors');
const { LineDecoder, ProtocolError } = require('./lib/framing');

/**
 * Starts an adapter on this process's stdin and stdout: says `hello`, then serves the runner until stdin ends
 * (exit 0), the runner refuses the handshake (exit 2) or the input breaks the protocol (exit 3, the reason on
 * stderr).
 * @param {import('./index').AdapterOptions} options
 * @returns {Host}
 */
function runAdapter(options) {
  return new Host(options).start();
}

module.exports = {
  runAdapter,
  Host,
  Session,
  Sleep,
  Deadline,
  CommandError,
  EffectError,
  DeadlineExceeded,
  ProtocolError,
  LineDecoder,
  PROTOCOL,
};
