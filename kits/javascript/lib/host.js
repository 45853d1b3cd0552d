'use strict';
// The protocol host: reads the runner's JSON lines, hands each message to the current Session in order, answers
// barriers once the client is idle, and starts a new Session on `reset`.

const { LineDecoder, ProtocolError, encode } = require('./framing');
const { Session } = require('./session');

const PROTOCOL = 1;
const HTTP_MODES = new Set(['message', 'loopback']);

/** Pending resources (process.getActiveResourcesInfo) that are work the client will do without the runner: a
 *  real timer, a file or DNS operation, compression. Sockets are not: they wait for the runner. */
const RUNNABLE_RESOURCES = new Set(['Timeout', 'FSReqCallback', 'FSReqPromise', 'FileHandleCloseReq',
  'GetAddrInfoReqWrap', 'GetNameInfoReqWrap', 'QueryReqWrap', 'ZLIB']);

function immediate() {
  return new Promise((resolve) => setImmediate(resolve));
}

class Host {
  /**
   * @param {object} options see index.d.ts (AdapterOptions)
   */
  constructor(options) {
    if (!options || typeof options.createClient !== 'function') throw new TypeError('createClient(session) is required');
    this.options = {
      input: process.stdin,
      output: process.stdout,
      errorOutput: process.stderr,
      exit: (code) => process.exit(code),
      reset: true,
      waitForTimers: true,
      ...options,
    };
    this.helloMessage = buildHello(this.options.hello || {}, this.options.reset);
    this.loopback = this.helloMessage.http === 'loopback';
    this.decoder = new LineDecoder();
    this.queue = Promise.resolve();
    this.session = null;
    this.stopped = false;
    this.tagCount = 0;
    this.instances = 0;
  }

  /** Says `hello` and serves the runner's messages until the input ends. Returns this host. */
  start() {
    this.newSession();
    const input = this.options.input;
    input.on('data', (chunk) => this.receive(chunk));
    input.on('end', () => {
      try {
        this.decoder.end();
      } catch (error) {
        this.fail(error);
        return;
      }
      this.queue.then(() => this.stop(0));
    });
    return this;
  }

  /** Resolves when every message received so far has been handled (tests). */
  idle() {
    return this.queue;
  }

  receive(chunk) {
    if (this.stopped) return;
    let messages;
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      this.fail(error);
      return;
    }
    for (const message of messages) {
      this.queue = this.queue.then(() => (this.stopped ? undefined : this.handle(message))).catch((error) => this.fail(error));
    }
  }

  write(message) {
    if (this.stopped) return;
    this.options.output.write(encode(message));
  }

  /** A line of the adapter's own on stderr (never a token: callers pass no values from the runner). */
  note(text) {
    this.options.errorOutput.write(`session-conformance-kit: ${text}\n`);
  }

  fail(error) {
    if (this.stopped) return;
    if (error instanceof ProtocolError) this.note(`protocol error: ${error.message}`);
    else this.note(`adapter error: ${error && error.stack ? error.stack : String(error)}`);
    this.stop(3);
  }

  stop(code) {
    if (this.stopped) return;
    this.stopped = true;
    if (this.session) this.session.dispose();
    this.options.exit(code);
  }

  newSession() {
    this.instances += 1;
    this.session = new Session(this, { loopback: this.loopback });
    this.write(this.helloMessage);
  }

  async handle(message) {
    const session = this.session;
    switch (message.type) {
      case 'welcome': {
        if (session.welcome) throw new ProtocolError('a second welcome for one instance');
        if (message.protocol !== PROTOCOL) throw new ProtocolError(`the runner speaks protocol ${JSON.stringify(message.protocol)}, this kit ${PROTOCOL}`);
        session.accept(message);
        const client = await this.options.createClient(session, message);
        if (!client || typeof client.perform !== 'function') throw new TypeError('createClient must return an object with perform(command)');
        session.client = client;
        return;
      }
      case 'error':
        this.note(`the runner refused the adapter: ${JSON.stringify(String(message.code)).slice(0, 80)}`);
        this.stop(2);
        return;
      case 'clock':
        session.readClock(message);
        return;
      case 'reply':
        session.deliver(message);
        return;
      case 'command':
        if (!session.client) throw new ProtocolError('a command before welcome');
        if (typeof message.id !== 'string' || typeof message.command !== 'string') throw new ProtocolError('a command without id or command');
        session.runCommand(message);
        return;
      case 'barrier':
        await this.barrier(message);
        return;
      case 'reset':
        if (!this.options.reset) throw new ProtocolError('reset, which this adapter did not declare');
        session.dispose();
        this.newSession();
        return;
      default:
        throw new ProtocolError(`unknown message type ${JSON.stringify(message.type).slice(0, 40)}`);
    }
  }

  /** Answers a barrier once the client has every response the runner sent and no runnable work is left: promise
   *  chains (microtasks) and immediates drained, no real timer or file operation pending, the round's deadlines
   *  applied. */
  async barrier(message) {
    const session = this.session;
    if (typeof message.id !== 'string') throw new ProtocolError('a barrier without an id');
    const answered = message.httpAnswered === undefined ? 0 : message.httpAnswered;
    if (!Number.isInteger(answered) || answered < 0) throw new ProtocolError('a barrier whose httpAnswered is not a count');
    await session.untilFinished(answered);
    for (;;) {
      await this.settle(session);
      if (this.options.waitForTimers && runnableResources() > 0) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      if (session.endOfRound()) continue;
      break;
    }
    const answer = { type: 'barrier', id: message.id };
    if (this.loopback) answer.httpStarted = session.httpStarted;
    this.write(answer);
  }

  /** Lets every runnable piece of JavaScript run: promise chains are microtasks, done before an immediate; two
   *  immediates in a row with nothing sent, started, finished or resolved is settled. */
  async settle(session) {
    for (;;) {
      const before = session.activity;
      await immediate();
      await immediate();
      if (session.activity === before) return;
    }
  }
}

function runnableResources() {
  if (typeof process.getActiveResourcesInfo !== 'function') return 0;
  return process.getActiveResourcesInfo().filter((type) => RUNNABLE_RESOURCES.has(type)).length;
}

function buildHello(options, reset) {
  const capabilities = [...(options.capabilities || [])];
  if (capabilities.includes('fork')) {
    throw new Error('this kit does not fork: Node cannot fork a started runtime (see the README); use reset');
  }
  if (reset && !capabilities.includes('reset')) capabilities.push('reset');
  const implementation = {
    name: 'unnamed-client', version: '0.0.0', language: 'JavaScript', platform: `node-${process.versions.node}`,
    ...(options.implementation || {}),
  };
  const hello = { type: 'hello', protocol: PROTOCOL, implementation, capabilities };
  if (options.refreshTriggers) hello.refreshTriggers = [...options.refreshTriggers];
  if (options.offlinePolicy) hello.offlinePolicy = options.offlinePolicy;
  const mode = options.http || 'message';
  if (!HTTP_MODES.has(mode)) throw new Error(`http must be "message" or "loopback", not ${JSON.stringify(mode)}`);
  if (mode === 'loopback') hello.http = 'loopback';
  return hello;
}

module.exports = { Host, PROTOCOL, buildHello };
