'use strict';
// One client instance: what the glue talks to. A Session lives from a `hello` to the next `reset` (or the process's
// end); everything the client does to the outside goes through it: effects as promises, events, the clock, the
// seed, deadlines, and in loopback mode the counting of real HTTP requests (axios through an http.Agent, fetch
// through a wrapper).

const http = require('http');
const { AsyncLocalStorage } = require('async_hooks');
const { CommandError, EffectError, DeadlineExceeded } = require('./errors');
const { ProtocolError } = require('./framing');

/** The command a piece of client code serves: `{ session, cause }`, carried across awaits. */
const context = new AsyncLocalStorage();

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const STORES = new Set(['storage', 'preferences']);

/** A `sleep` effect: `done` resolves true when the runner's clock reached it, false when it was woken first. */
class Sleep {
  constructor(session, seconds, onReply) {
    this.session = session;
    this.id = session.nextEffectId();
    this.seconds = seconds;
    this.replied = false;
    this.done = new Promise((resolve) => { this.resolve = resolve; });
    session.waiting.set(this.id, {
      kind: 'sleep',
      resolve: () => {
        this.replied = true;
        this.resolve(true);
        if (onReply) onReply();
      },
    });
    session.send({ type: 'sleep', id: this.id, seconds });
  }

  /** Ends the sleep early: the runner is told (`abandon`), so it no longer counts as outstanding, and `done`
   *  resolves false. Does nothing once the sleep was answered or woken. */
  wake(reason = 'cancelled') {
    if (this.session.abandon(this.id, reason)) this.resolve(false);
  }
}

/**
 * A deadline on the runner's virtual clock: a `sleep` raced against an exchange (docs/porting-guide.md,
 * Real-time waits). The winner is decided by the round's barrier, never by the order two channels happen to
 * deliver in:
 * - the exchange ends first (`settle()`): its sleep is abandoned (`reason: "answered"`) at the round's barrier;
 * - the sleep's reply comes and the exchange has not ended once every reply and response of that round was
 *   delivered: the exchange is given up on (`onExpire`: the `abandon` of the request, `reason: "timeout"`) and
 *   `signal` aborts with a DeadlineExceeded;
 * - both in the same round: the exchange wins (it was answered), and no abandon is sent for the sleep, which the
 *   runner answered already.
 */
class Deadline {
  constructor(session, seconds, { onExpire } = {}) {
    this.session = session;
    this.seconds = seconds;
    this.tag = session.loopback ? session.newTag() : null;
    this.state = 'running';
    this.onExpire = onExpire;
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    this.sleep = new Sleep(session, seconds, () => session.roundWork.add(this));
    session.deadlines.add(this);
  }

  /** Headers to give the guarded request in loopback mode (its tag); empty in message mode. */
  get headers() {
    return this.tag ? { 'X-Conformance-Request': this.tag } : {};
  }

  get expired() {
    return this.state === 'expired';
  }

  /** The exchange ended (answered or failed): the deadline no longer applies. */
  settle() {
    if (this.state !== 'running') return;
    this.state = 'settled';
    this.session.roundWork.add(this);
  }

  /** At the round's barrier: applies what the round decided. Returns true when it changed anything. */
  endOfRound() {
    this.session.roundWork.delete(this);
    if (this.state === 'running' && this.sleep.replied) {
      this.state = 'expired';
      this.session.deadlines.delete(this);
      if (this.onExpire) this.onExpire(this);
      this.controller.abort(new DeadlineExceeded(this.seconds));
      return true;
    }
    if (this.state === 'settled') {
      this.session.deadlines.delete(this);
      if (!this.sleep.replied) {
        this.sleep.wake('answered');
        return true;
      }
    }
    return false;
  }
}

/** A store the runner keeps across process deaths: `storage` (secure) or `preferences`. */
class Store {
  constructor(session, type) {
    this.session = session;
    this.type = type;
  }

  async request(fields) {
    const reply = await this.session.effect({ type: this.type, ...fields });
    if (reply.error) throw new EffectError(String(reply.error.code), reply.error.definite !== false, this.type);
    return reply;
  }

  /** The stored text, or null when absent. */
  async get(key) {
    const reply = await this.request({ op: 'get', key });
    return reply.value === undefined ? null : reply.value;
  }

  /** Stores `value` (text). Secure storage takes an accessibility class: `afterFirstUnlock` (default; readable by
   *  a background refresh on a locked device) or `whenUnlocked`. Takes effect when the runner receives it. */
  async set(key, value, accessibility = 'afterFirstUnlock') {
    const fields = { op: 'set', key, value };
    if (this.type === 'storage') fields.accessibility = accessibility;
    await this.request(fields);
  }

  async delete(key) {
    await this.request({ op: 'delete', key });
  }
}

class Session {
  constructor(host, { loopback }) {
    this.host = host;
    this.loopback = loopback;
    this.alive = true;
    this.activity = 0;
    this.waiting = new Map();
    this.effectCount = 0;
    this.tagCount = 0;
    this.clock = { wall: 0, monotonic: 0 };
    this.welcome = null;
    this.world = null;
    this.baseURL = null;
    this.seed = 0n;
    this.randomState = 0n;
    this.client = null;
    this.httpStarted = 0;
    this.httpFinished = 0;
    this.finishWaiters = [];
    this.abandonedTags = new Set();
    this.deadlines = new Set();
    this.roundWork = new Set();
    this.agent = null;
    /** Secure storage: `get`, `set`, `delete` (rejects with EffectError `locked` or `writeFailed`). */
    this.storage = new Store(this, 'storage');
    /** Preferences (the business cache): `get`, `set`, `delete` (rejects with EffectError `writeFailed`). */
    this.preferences = new Store(this, 'preferences');
  }

  // ---- The runner's settings.

  accept(welcome) {
    this.welcome = welcome;
    this.readClock(welcome.clock);
    this.world = welcome.world && typeof welcome.world === 'object' ? welcome.world : null;
    try {
      this.seed = BigInt.asUintN(64, BigInt(String(welcome.seed)));
    } catch (error) {
      throw new ProtocolError('welcome.seed is not a decimal string');
    }
    this.randomState = this.seed;
    if (this.loopback) {
      const baseURL = welcome.http && welcome.http.baseURL;
      if (typeof baseURL !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+\/?$/.test(baseURL)) {
        throw new ProtocolError('a loopback welcome without an http.baseURL on 127.0.0.1');
      }
      this.baseURL = baseURL.replace(/\/$/, '');
    }
  }

  readClock(clock) {
    if (!clock || typeof clock.wall !== 'number' || typeof clock.monotonic !== 'number') {
      throw new ProtocolError('a clock reading without numbers');
    }
    this.clock = { wall: clock.wall, monotonic: clock.monotonic };
  }

  /** The device's wall clock, in seconds since 1970, as the runner last set it. */
  now() {
    return this.clock.wall;
  }

  /** The monotonic clock, in seconds; only grows. Time moves only when the runner says so. */
  monotonic() {
    return this.clock.monotonic;
  }

  /** A number in [0, 1) from a generator seeded by `welcome.seed` (splitmix64): the same case, the same draws. */
  random() {
    this.randomState = BigInt.asUintN(64, this.randomState + 0x9e3779b97f4a7c15n);
    let z = this.randomState;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    z ^= z >> 31n;
    return Number(z >> 11n) / 2 ** 53;
  }

  // ---- Messages to the runner.

  /** Sends a message as it is. A session ended by `reset` sends nothing any more. */
  send(message) {
    if (!this.alive) return;
    this.activity += 1;
    this.host.write(message);
  }

  /** Reports a transition of Specs/state-machine.yaml (`id` null for the launch's entry into `restoring`). */
  transition(id, { from, to, account = null, generation, reason }) {
    this.send({ type: 'transition', transition: id, from, to, account, generation, reason });
  }

  /** A UI event: `ui('signInPrompt')`, `ui('content', { resource, account, generation, contentId })`. */
  ui(event, fields = {}) {
    this.send({ type: 'ui', ...fields, event });
  }

  /** A log line for the trace; the runner scans it for token values, as it scans stderr. */
  log(level, message) {
    this.send({ type: 'log', level, message: String(message) });
  }

  // ---- Effects.

  nextEffectId() {
    this.effectCount += 1;
    return `e${this.effectCount}`;
  }

  /** Sends an effect (an `id` is given) and resolves with the runner's `reply` message as it is. */
  effect(message) {
    const id = this.nextEffectId();
    return new Promise((resolve) => {
      this.waiting.set(id, { kind: message.type, resolve });
      this.send({ ...message, id });
    });
  }

  /** A `sleep` of `seconds` on the runner's monotonic clock: `{ id, done, wake(reason) }`. */
  sleep(seconds) {
    return new Sleep(this, seconds);
  }

  /** Tells the runner nobody waits for effect `id` any more (an `http` effect or a `sleep`): it never answers it,
   *  and a reply that crossed the abandon is dropped. Returns false when there was nothing to abandon (already
   *  answered or abandoned). Storage and preferences changes cannot be abandoned. */
  abandon(id, reason) {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    if (STORES.has(entry.kind)) throw new Error(`a ${entry.kind} effect cannot be abandoned`);
    this.waiting.delete(id);
    const message = { type: 'abandon', id };
    if (reason) message.reason = reason;
    this.send(message);
    return true;
  }

  /** A runner `reply`: resumes whoever awaits it. A reply nobody waits for (abandoned) is dropped. */
  deliver(reply) {
    if (typeof reply.id !== 'string') throw new ProtocolError('a reply without an id');
    const entry = this.waiting.get(reply.id);
    if (!entry) return;
    this.waiting.delete(reply.id);
    this.activity += 1;
    entry.resolve(reply);
  }

  /**
   * HTTP through the protocol (message mode): an `http` effect. Resolves with the response
   * (`{ status, headers, body }`), rejects with EffectError for a `failure` (`timeout`, `offline`,
   * `connectionLost`), or with DeadlineExceeded when `options.deadline` seconds of the runner's clock pass first
   * (the effect is then abandoned, `reason: "timeout"`). `cause` defaults to the command being served.
   * @param {{method: string, path: string, headers?: object, body?: any}} request
   * @param {{deadline?: number, cause?: string, signal?: AbortSignal}} [options]
   */
  http(request, { deadline = null, cause = this.cause(), signal = null } = {}) {
    if (this.loopback) throw new Error('in loopback mode HTTP is real: use session.fetch or session.instrumentAxios');
    const id = this.nextEffectId();
    return new Promise((resolve, reject) => {
      let guard = null;
      const giveUp = (reason, error) => {
        if (this.abandon(id, reason)) reject(error);
      };
      if (signal) {
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', () => {
          if (guard) guard.settle();
          const timedOut = signal.reason instanceof DeadlineExceeded;
          giveUp(timedOut ? 'timeout' : 'cancelled', signal.reason);
        }, { once: true });
      }
      this.waiting.set(id, {
        kind: 'http',
        resolve: (reply) => {
          if (guard) guard.settle();
          if (reply.failure) {
            reject(new EffectError(String(reply.failure.code), reply.failure.definite === true, 'http'));
          } else {
            resolve(reply.response || { status: 0, headers: {}, body: null });
          }
        },
      });
      const message = { type: 'http', id, request: { method: request.method || 'GET', path: request.path, headers: request.headers || {}, body: request.body === undefined ? null : request.body } };
      if (cause) message.cause = cause;
      this.send(message);
      if (deadline !== null && deadline !== undefined) {
        guard = new Deadline(this, deadline, { onExpire: () => giveUp('timeout', new DeadlineExceeded(deadline)) });
      }
      return undefined;
    });
  }

  /** A deadline of `seconds` on the runner's clock for an exchange you run yourself (see Deadline). */
  startDeadline(seconds, options) {
    return new Deadline(this, seconds, options);
  }

  /**
   * Runs `start(deadline)` against a deadline of `seconds` on the runner's clock: resolves or rejects as the
   * exchange does, or rejects with DeadlineExceeded when the deadline wins (loopback: the request's tag is
   * abandoned first, then `deadline.signal` aborts it). Give the request `deadline.signal` and
   * `deadline.headers`. Works in both modes: in message mode `session.fetch` abandons its effect on the abort.
   * @template T
   * @param {number} seconds
   * @param {(deadline: Deadline) => Promise<T>} start
   * @returns {Promise<T>}
   */
  withDeadline(seconds, start) {
    const deadline = new Deadline(this, seconds, {
      onExpire: (d) => { if (d.tag) this.abandonRequest(d.tag, 'timeout'); },
    });
    return new Promise((resolve, reject) => {
      deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason), { once: true });
      Promise.resolve().then(() => start(deadline)).then((value) => {
        deadline.settle();
        resolve(value);
      }, (error) => {
        deadline.settle();
        reject(error);
      });
    });
  }

  // ---- Which command a piece of code serves.

  /** The id of the command the running code serves (carried across awaits), or undefined. */
  cause() {
    const store = context.getStore();
    return store && store.session === this ? store.cause : undefined;
  }

  /** Runs `fn` as work of the client's own (a timer's): no command is its cause, nor of what it starts. */
  detached(fn) {
    return context.run({ session: this, cause: undefined }, fn);
  }

  /** Runs a command on the client and sends its one `result`. */
  runCommand(command) {
    const client = this.client;
    context.run({ session: this, cause: command.id }, () => {
      Promise.resolve().then(() => client.perform(command)).then((content) => {
        const result = { type: 'result', id: command.id, outcome: 'ok' };
        if (content !== undefined && content !== null) result.content = content;
        this.send(result);
      }, (error) => {
        this.send({ type: 'result', id: command.id, outcome: 'error', error: describeError(error, this.host) });
      });
    });
  }

  // ---- Loopback counting.

  /** A request tag (`X-Conformance-Request`), unique in the process: what an `abandon` of the request names. */
  newTag() {
    this.host.tagCount += 1;
    return `r${this.host.tagCount}`;
  }

  /** The client gives up on the loopback request tagged `tag`: the runner is told, and the request is never
   *  counted finished (the runner never answers it, so `httpAnswered` never counts it). Call it before aborting. */
  abandonRequest(tag, reason = 'timeout') {
    if (this.abandonedTags.has(tag)) return;
    this.abandonedTags.add(tag);
    this.send({ type: 'abandon', id: tag, reason });
  }

  requestStarted() {
    this.httpStarted += 1;
    this.activity += 1;
  }

  requestFinished(tag) {
    if (tag && this.abandonedTags.has(tag)) return;
    this.httpFinished += 1;
    this.activity += 1;
    const ready = this.finishWaiters.filter((waiter) => this.httpFinished >= waiter.count);
    this.finishWaiters = this.finishWaiters.filter((waiter) => this.httpFinished < waiter.count);
    ready.forEach((waiter) => waiter.resolve());
  }

  /** Resolves once `count` requests have finished (response read, or connection failed). */
  untilFinished(count) {
    if (this.httpFinished >= count) return Promise.resolve();
    return new Promise((resolve) => this.finishWaiters.push({ count, resolve }));
  }

  /** An http.Agent (keep-alive, no socket limit: a pool smaller than a burst would queue requests the runner
   *  waits for) that counts each request started when Node commits it to a socket (`addRequest`) and finished
   *  at its `close` (response read to its end, or the connection failed). Give it to axios or http.request. */
  get httpAgent() {
    if (!this.agent) {
      const session = this;
      class CountingAgent extends http.Agent {
        addRequest(request, options) {
          session.requestStarted();
          const tag = request.getHeader('x-conformance-request');
          request.once('close', () => session.requestFinished(typeof tag === 'string' ? tag : undefined));
          return super.addRequest(request, options);
        }
      }
      this.agent = new CountingAgent({ keepAlive: true, maxSockets: Infinity });
    }
    return this.agent;
  }

  /**
   * `fetch` for the client. Loopback mode: the global fetch, counted (started when called, finished when the
   * body has been read or the request failed), `X-Conformance-Cause` added, every request tagged (so an abort
   * through `init.signal` is an `abandon`), redirects not followed (`redirect: "manual"`), a path resolved
   * against `welcome.http.baseURL`. The Response returned holds the body already read. Message mode: an `http`
   * effect, answered as a Response; a failure rejects with a TypeError whose `cause` is the EffectError, as
   * fetch does. `init.deadline` (seconds of the runner's clock) runs it under `withDeadline`.
   * @param {string|URL} input
   * @param {RequestInit & {deadline?: number}} [init]
   * @returns {Promise<Response>}
   */
  fetch(input, init = {}) {
    if (init.deadline !== undefined && init.deadline !== null) {
      const { deadline: seconds, ...rest } = init;
      return this.withDeadline(seconds, (deadline) => {
        const headers = new Headers(rest.headers);
        for (const [name, value] of Object.entries(deadline.headers)) headers.set(name, value);
        return this.fetch(input, { ...rest, headers, signal: deadline.signal });
      });
    }
    return this.loopback ? this.fetchLoopback(input, init) : this.fetchThroughEffect(input, init);
  }

  async fetchLoopback(input, init) {
    const url = new URL(String(input), this.baseURL + '/');
    const headers = new Headers(init.headers);
    const cause = this.cause();
    if (cause && !headers.has('x-conformance-cause')) headers.set('X-Conformance-Cause', cause);
    if (!headers.has('x-conformance-request')) headers.set('X-Conformance-Request', this.newTag());
    const tag = headers.get('x-conformance-request');
    const signal = init.signal || null;
    const onAbort = () => {
      const timedOut = signal.reason instanceof DeadlineExceeded;
      this.abandonRequest(tag, timedOut ? 'timeout' : 'cancelled');
    };
    if (signal) {
      if (signal.aborted) throw signal.reason;
      signal.addEventListener('abort', onAbort, { once: true });
    }
    this.requestStarted();
    try {
      const response = await globalThis.fetch(url, { ...init, headers, redirect: init.redirect || 'manual' });
      const body = await response.arrayBuffer();
      this.requestFinished(tag);
      return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body,
        { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      this.requestFinished(tag);
      throw error;
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort);
    }
  }

  async fetchThroughEffect(input, init) {
    const url = new URL(String(input), 'http://world.invalid/');
    const headers = {};
    new Headers(init.headers).forEach((value, name) => {
      if (name !== 'x-conformance-cause' && name !== 'x-conformance-request') headers[name] = value;
    });
    let body = init.body === undefined || init.body === null ? null : init.body;
    if (body instanceof URLSearchParams) {
      body = body.toString();
      headers['content-type'] = headers['content-type'] || 'application/x-www-form-urlencoded';
    } else if (body !== null && typeof body !== 'string') {
      body = Buffer.from(body).toString('utf8');
    }
    if (typeof body === 'string' && /json/i.test(headers['content-type'] || '')) {
      try { body = JSON.parse(body); } catch (error) { /* sent as text */ }
    }
    let response;
    try {
      response = await this.http({ method: (init.method || 'GET').toUpperCase(), path: url.pathname + url.search, headers, body },
        { signal: init.signal || null });
    } catch (error) {
      if (error instanceof EffectError) throw new TypeError('fetch failed', { cause: error });
      throw error;
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers || {})) responseHeaders.set(name, String(value));
    let text = null;
    if (response.body !== null && response.body !== undefined) {
      text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
      if (typeof response.body !== 'string' && !responseHeaders.has('content-type')) responseHeaders.set('content-type', 'application/json');
    }
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, { status: response.status, headers: responseHeaders });
  }

  /**
   * Makes an axios instance count for the barrier (loopback mode): its `httpAgent` becomes the counting agent,
   * `proxy` false, `baseURL` the runner's (unless set), and a request interceptor adds `X-Conformance-Cause`.
   * With `deadline` (seconds), every request of the instance also gets a deadline on the runner's clock, a
   * retry included (a new tag each time): the request is tagged and given an AbortSignal; when the deadline wins
   * its tag is abandoned, it is aborted, and it fails as axios's own timeout does (`ECONNABORTED`).
   * Call it right after `axios.create`, before adding your interceptors: axios runs request interceptors last
   * registered first, so these run last (after your headers are set) and the deadline's response side first.
   * @param {import('axios').AxiosInstance} instance
   * @param {{axios?: object, deadline?: number|null}} [options] pass `axios` to get a real AxiosError
   */
  instrumentAxios(instance, { axios = null, deadline = null } = {}) {
    instance.defaults.httpAgent = this.httpAgent;
    instance.defaults.proxy = false;
    if (this.baseURL && !instance.defaults.baseURL) instance.defaults.baseURL = this.baseURL;
    if (deadline !== null && deadline !== undefined) this.axiosDeadline(instance, deadline, axios);
    instance.interceptors.request.use((config) => {
      const cause = this.cause();
      if (cause) config.headers['X-Conformance-Cause'] = cause;
      return config;
    });
    return instance;
  }

  axiosDeadline(instance, seconds, axios) {
    const guards = new WeakMap();
    instance.interceptors.request.use((config) => {
      const guard = new Deadline(this, seconds, { onExpire: (d) => this.abandonRequest(d.tag, 'timeout') });
      config.headers['X-Conformance-Request'] = guard.tag;
      config.signal = guard.signal;
      guards.set(config, guard);
      return config;
    });
    const settle = (config) => {
      const guard = config && guards.get(config);
      if (guard) guard.settle();
      return guard;
    };
    instance.interceptors.response.use((response) => {
      settle(response.config);
      return response;
    }, (error) => {
      const guard = settle(error && error.config);
      if (guard && guard.expired && error && (error.code === 'ERR_CANCELED' || error.name === 'CanceledError')) {
        const message = `timeout of ${seconds}s exceeded`;
        if (axios && axios.AxiosError) throw new axios.AxiosError(message, 'ECONNABORTED', error.config);
        throw Object.assign(new Error(message), { code: 'ECONNABORTED', config: error.config, isAxiosError: true });
      }
      throw error;
    });
  }

  // ---- The host's side.

  /** At a barrier: applies the deadlines the round decided. Returns true when anything changed. */
  endOfRound() {
    let changed = false;
    for (const deadline of [...this.roundWork]) changed = deadline.endOfRound() || changed;
    return changed;
  }

  /** `reset`: this instance is over. Nothing it still does reaches the runner. */
  dispose() {
    this.alive = false;
    this.waiting.clear();
    this.finishWaiters = [];
    this.deadlines.clear();
    this.roundWork.clear();
    if (this.agent) this.agent.destroy();
    if (this.client && typeof this.client.dispose === 'function') {
      try { this.client.dispose(); } catch (error) { /* the instance is gone either way */ }
    }
  }
}

/** A command's failure as a result's `error`. Only a CommandError's message is sent; other errors become their
 *  `code` (or `internalError`, noted on stderr by type only: an error's text may hold what it was given). */
function describeError(error, host) {
  const code = error && typeof error.code === 'string' && error.code ? error.code : 'internalError';
  let message = code;
  if (error instanceof CommandError || (error && typeof error.safeMessage === 'string')) {
    message = error.safeMessage || error.message;
  }
  if (code === 'internalError') host.note(`a command failed with ${error && error.name ? error.name : typeof error}`);
  return { code, message, definite: !(error && error.definite === false) };
}

module.exports = { Session, Sleep, Deadline, context };
