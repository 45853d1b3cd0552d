'use strict';

/** A command the client failed: becomes `{"type":"result","outcome":"error","error":{code,message,definite}}`.
 *  `message` is shown in reports: never put a token in it. */
class CommandError extends Error {
  /**
   * @param {string} code the client's own error code (`invalidInput` is the one the cases count)
   * @param {string} [message] a human message without secrets
   * @param {{definite?: boolean}} [options] definite: false when the outcome is unknown (a timeout)
   */
  constructor(code, message, { definite = true } = {}) {
    super(message || code);
    this.name = 'CommandError';
    this.code = code;
    this.definite = definite;
  }
}

/** A `reply` carried an `error` (storage `locked`/`writeFailed`) or a `failure` (http `timeout`, `offline`,
 *  `connectionLost`). */
class EffectError extends Error {
  constructor(code, definite, effect) {
    super(`${effect} effect failed: ${code}`);
    this.name = 'EffectError';
    this.code = code;
    this.definite = definite;
    this.effect = effect;
  }
}

/** A deadline on the runner's virtual clock passed before the exchange it guarded ended. The outcome is unknown:
 *  the server may have processed the request. */
class DeadlineExceeded extends Error {
  constructor(seconds) {
    super(`deadline of ${seconds}s exceeded on the runner's clock`);
    this.name = 'TimeoutError';
    this.code = 'ETIMEDOUT';
    this.definite = false;
    this.seconds = seconds;
  }
}

module.exports = { CommandError, EffectError, DeadlineExceeded };
