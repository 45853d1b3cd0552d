'use strict';
// Protocol v1 host for a Node client whose HTTP is real: loopback mode (docs/adapter-protocol.md).
//
// Everything but HTTP stays on the protocol: commands come in on stdin; secure storage, preferences, sleeps,
// transitions, UI events and logs go out on stdout. HTTP goes to the runner's server on 127.0.0.1 through
// the client's own stack (axios over Node's http module), so its interceptors really run.
//
// Determinism across the two channels: every request goes through `countingAgent`, which counts requests
// started (when Node commits them to a socket) and finished (response read to its end, or the connection
// failed). A barrier is answered only once the client has received every response the runner says it sent
// (`httpAnswered`) and no JavaScript work is runnable, and the answer reports `httpStarted`.

const http = require('http');
const readline = require('readline');
const { AsyncLocalStorage } = require('async_hooks');

const causeStorage = new AsyncLocalStorage();

class Host {
  constructor() {
    this.waiting = new Map();
    this.nextEffect = 0;
    this.clock = { wall: 0, monotonic: 0 };
    this.started = 0;
    this.finished = 0;
    this.finishWaiters = [];
    this.written = 0;
    this.queue = Promise.resolve();
    this.nextTag = 0;
    this.abandoned = new Set(); // tags of requests given up on: the runner never answers them
  }

  send(message) {
    this.written += 1;
    process.stdout.write(JSON.stringify(message) + '\n');
  }

  /** An effect the runner answers with a `reply`; resolves with the reply, or null when abandoned. */
  effect(message) {
    this.nextEffect += 1;
    const id = `e${this.nextEffect}`;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ ...message, id });
    });
  }

  /** A sleep on the runner's virtual clock; `wake()` ends it early and tells the runner (`abandon`), so the sleep no
   *  longer counts as outstanding. A deadline raced against a request is the same: the loser is abandoned
   *  (docs/porting-guide.md, Real-time waits). */
  sleep(seconds) {
    this.nextEffect += 1;
    const id = `e${this.nextEffect}`;
    let wake;
    const done = new Promise((resolve) => {
      this.waiting.set(id, resolve);
      wake = () => {
        if (this.waiting.delete(id)) this.send({ type: 'abandon', id, reason: 'woken' });
        resolve(null);
      };
    });
    this.send({ type: 'sleep', id, seconds });
    return { done, wake };
  }

  /** A tag for a request (its `X-Conformance-Request` header), unique in the process: what an `abandon` names. */
  newTag() {
    this.nextTag += 1;
    return `r${this.nextTag}`;
  }

  /** The client gives up on the request tagged `tag` (its deadline passed): the runner is told, and the request
   *  is not counted as finished when its connection closes, since the runner never answers it (it is not in
   *  `httpAnswered`). Called before the request is aborted. */
  abandonRequest(tag) {
    this.abandoned.add(tag);
    this.send({ type: 'abandon', id: tag, reason: 'timeout' });
  }

  /** An http.Agent that counts requests started and finished, for the barrier. */
  countingAgent() {
    const host = this;
    class CountingAgent extends http.Agent {
      addRequest(request, options) {
        host.started += 1;
        const tag = request.getHeader('x-conformance-request');
        request.once('close', () => {
          if (!host.abandoned.has(tag)) host.requestFinished();
        });
        return super.addRequest(request, options);
      }
    }
    return new CountingAgent({ keepAlive: true, maxSockets: Infinity });
  }

  requestFinished() {
    this.finished += 1;
    const ready = this.finishWaiters.filter((w) => this.finished >= w.count);
    this.finishWaiters = this.finishWaiters.filter((w) => this.finished < w.count);
    ready.forEach((w) => w.resolve());
  }

  untilFinished(count) {
    if (this.finished >= count) return Promise.resolve();
    return new Promise((resolve) => this.finishWaiters.push({ count, resolve }));
  }

  /** Lets every runnable piece of JavaScript run: promise chains are microtasks, done before setImmediate. */
  async settle() {
    for (;;) {
      const before = [this.written, this.started, this.finished];
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const after = [this.written, this.started, this.finished];
      if (before.every((value, index) => value === after[index])) return;
    }
  }

  async handle(message, client) {
    switch (message.type) {
      case 'welcome':
        this.clock = message.clock;
        return client.welcome(message);
      case 'error':
        process.stderr.write(`adapter: the runner refused us: ${message.code}\n`);
        process.exit(2);
        return undefined;
      case 'clock':
        this.clock = { wall: message.wall, monotonic: message.monotonic };
        return undefined;
      case 'reply': {
        const resolve = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (resolve) resolve(message);
        return undefined;
      }
      case 'command':
        causeStorage.run(message.id, () => {
          client.perform(message).then((content) => {
            const result = { type: 'result', id: message.id, outcome: 'ok' };
            if (content !== undefined && content !== null) result.content = content;
            this.send(result);
          }, (error) => {
            this.send({ type: 'result', id: message.id, outcome: 'error',
              error: { code: error.code || 'internalError', message: error.safeMessage || 'failed', definite: error.definite !== false } });
          });
        });
        return undefined;
      case 'barrier':
        await this.untilFinished(message.httpAnswered || 0);
        await this.settle();
        this.send({ type: 'barrier', id: message.id, httpStarted: this.started });
        return undefined;
      default:
        throw new Error(`unknown runner message type ${message.type}`);
    }
  }

  /** Runner messages are handled one at a time, in order. */
  run(hello, client) {
    this.send(hello);
    const lines = readline.createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      if (!line.trim()) return;
      const message = JSON.parse(line);
      this.queue = this.queue.then(() => this.handle(message, client)).catch((error) => {
        process.stderr.write(`adapter: ${error && error.stack}\n`);
        process.exit(3);
      });
    });
    lines.on('close', () => this.queue.then(() => process.exit(0)));
  }
}

module.exports = { Host, causeStorage };
