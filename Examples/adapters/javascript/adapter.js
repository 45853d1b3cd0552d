'use strict';
// A React Native-style session layer on axios, with the single-flight refresh of
// Specs/sources/001_11ef74d1a00d33c4.txt ("refreshOnce") in axios interceptors, over real HTTP to the
// runner's loopback server. It is what many teams ship: the pattern, and a plain app around it. The suite
// shows what the pattern covers and what it leaves out (expected.yaml beside this file).
//
//   NODE_PATH=/usr/share/nodejs node Examples/adapters/javascript/adapter.js [--request-timeout SECONDS]
//
// axios is Debian's node-axios (apt-get install node-axios), found through NODE_PATH.
// --request-timeout gives every request a deadline on the runner's virtual clock, as axios's `timeout` does in
// an app (in real time there): the kit's `instrumentAxios(instance, { deadline })`. Without it no request has one,
// as axios's default (0). The protocol (stdin/stdout, barriers, counting, deadlines) is kits/javascript.

const path = require('path');
const axios = require('axios');

/** The kit: installed (npm install path/to/session-conformance/kits/javascript), else the checkout's. */
function requireKit() {
  try {
    return require('session-conformance-kit');
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
    return require(path.join(__dirname, '..', '..', '..', 'kits', 'javascript'));
  }
}
const { runAdapter } = requireKit();

/** `--request-timeout SECONDS`: the deadline of every request, in seconds of the runner's clock; null: none. */
function requestTimeoutOption(argv) {
  const index = argv.indexOf('--request-timeout');
  if (index < 0) return null;
  const seconds = Number(argv[index + 1]);
  if (!(seconds > 0 && Number.isFinite(seconds))) {
    process.stderr.write(`adapter: --request-timeout wants a positive number of seconds, not '${argv[index + 1]}'\n`);
    process.exit(2);
  }
  return seconds;
}
const REQUEST_TIMEOUT = requestTimeoutOption(process.argv.slice(2));

// Specs/state-machine.yaml: id -> [from, to, generation increments]
const TRANSITIONS = {
  'restore-validated': ['restoring', 'authenticated', false],
  'restore-failed': ['restoring', 'signedOut', true],
  'refresh-started': ['authenticated', 'refreshing', false],
  'refresh-succeeded': ['refreshing', 'authenticated', false],
  'refresh-deferred': ['refreshing', 'authenticated', false],
  'refresh-rejected': ['refreshing', 'signedOut', true],
  'sign-out': ['authenticated', 'signedOut', true],
  'sign-out-during-refresh': ['refreshing', 'signedOut', true],
  'sign-in-started': ['signedOut', 'signingIn', false],
  'sign-in-succeeded': ['signingIn', 'authenticated', true],
  'sign-in-failed': ['signingIn', 'signedOut', false],
  'account-switch': ['authenticated', 'signingIn', true],
};

class AppError extends Error {
  constructor(code, safeMessage, definite = true) {
    super(code);
    this.code = code;
    this.safeMessage = safeMessage || code;
    this.definite = definite;
  }
}

/** The refresh was refused explicitly (400 invalid_grant or a revoked session): the only sign-out cause. */
class AuthRejected extends AppError {
  constructor() { super('sessionEnded', 'the server rejected the session'); }
}

/** Tokens in secure storage (the kit's `storage` effects): both in ONE item, readable after first unlock (for
 *  background refresh). */
class TokenStore {
  constructor(storage) { this.storage = storage; }

  async read() {
    let value;
    try { value = await this.storage.get('auth.tokens'); } catch (error) { throw new AppError('storageUnavailable', 'secure storage is locked'); }
    return value ? JSON.parse(value) : null;
  }

  async write(tokens) {
    try { await this.storage.set('auth.tokens', JSON.stringify(tokens), 'afterFirstUnlock'); } catch (error) { throw new AppError('storageUnavailable', 'secure storage is locked'); }
  }

  async clear() {
    await this.storage.delete('auth.tokens').catch(() => {});
  }
}

class App {
  constructor(session) {
    this.session = session;
    this.tokenStore = new TokenStore(session.storage);
    this.state = 'restoring';
    this.generation = 1;
    this.tokens = null;       // { accessToken, refreshToken, account }
    this.inFlight = null;     // the one refresh promise (001)
    this.signalWaiters = [];
    const common = { maxRedirects: 0, validateStatus: (status) => status >= 200 && status < 300 };
    // The kit counts each instance's requests for the barrier (its http.Agent), adds X-Conformance-Cause and,
    // with --request-timeout, gives every request a deadline on the runner's clock (axios's `timeout` is real
    // time): registered first, so they run after the interceptors below.
    const instrument = (instance) => session.instrumentAxios(instance, { axios, deadline: REQUEST_TIMEOUT });
    this.api = instrument(axios.create(common));
    // The refresh goes through its own instance without the 401 interceptor: a failed refresh can never
    // trigger another refresh.
    this.authApi = instrument(axios.create(common));
    this.api.interceptors.request.use((config) => {
      if (this.tokens) config.headers.Authorization = `Bearer ${this.tokens.accessToken}`;
      return config;
    });
    // Every 401 awaits the same refresh, then the request is retried once with the new token.
    this.api.interceptors.response.use((response) => response, async (error) => {
      const original = error.config;
      if (!error.response || error.response.status !== 401 || original._retry) throw error;
      original._retry = true;
      await this.refreshOnce();
      return this.api(original);
    });
  }

  // ---- 001's pattern: one in-flight refresh shared by every caller, the new pair stored before use.

  refreshOnce() {
    this.inFlight ??= (async () => {
      if (this.state === 'authenticated') this.transition('refresh-started', 'accessTokenRejected');
      const current = await this.tokenStore.read();
      const next = await this.refresh(current.refreshToken); // throws AuthRejected on invalid_grant
      await this.tokenStore.write(next); // persist before anyone uses it
      this.tokens = next;
      if (this.state === 'refreshing') this.transition('refresh-succeeded', 'tokensRotated');
      return next;
    })().catch(async (error) => {
      if (error instanceof AuthRejected) {
        if (this.state === 'refreshing') await this.endSession('refresh-rejected', 'invalidGrant', true);
      } else if (this.state === 'refreshing') {
        this.transition('refresh-deferred', 'retryableFailure'); // keep the session: not a rejection
      }
      throw error;
    }).finally(() => { this.inFlight = null; });
    return this.inFlight;
  }

  async refresh(refreshToken) {
    try {
      const { data } = await this.authApi.post('/auth/refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
      return { accessToken: data.access_token, refreshToken: data.refresh_token || refreshToken, account: this.tokens.account };
    } catch (error) {
      const status = error.response && error.response.status;
      const code = error.response && error.response.data && error.response.data.error;
      if ((status === 400 || status === 401) && (code === 'invalid_grant' || code === 'session_revoked')) throw new AuthRejected();
      throw new AppError(error.response ? 'serverError' : 'transportFailure', 'refresh failed', false);
    }
  }

  // ---- The app around it.

  transition(id, reason) {
    const [from, to, increments] = TRANSITIONS[id];
    if (increments) this.generation += 1;
    this.state = to;
    this.session.send({ type: 'transition', transition: id, from, to, account: this.tokens ? this.tokens.account : null, generation: this.generation, reason });
    this.session.send({ type: 'log', level: 'info', message: `transition ${id} ${from}->${to}` });
  }

  async endSession(id, reason, prompt) {
    const account = this.tokens && this.tokens.account;
    this.transition(id, reason);
    this.tokens = null;
    await this.tokenStore.clear();
    if (account) {
      for (const resource of this.cached) await this.session.effect({ type: 'preferences', op: 'delete', key: `cache/${account}/${resource}` });
      this.cached = new Set();
    }
    if (prompt) this.session.send({ type: 'ui', event: 'signInPrompt' });
  }

  untilSignal() {
    return new Promise((resolve) => this.signalWaiters.push(resolve));
  }

  async perform(command) {
    switch (command.command) {
      case 'launch': return this.launch();
      case 'signIn': return this.signIn(command.email, command.password);
      case 'switchAccount': return this.switchAccount(command.email, command.password);
      case 'signOut': return this.signOut();
      case 'request': return this.fetch(command.resource);
      case 'backgroundRefresh':
        if (this.state !== 'authenticated' && this.state !== 'refreshing') return { outcome: 'notSignedIn' };
        await this.refreshOnce();
        return { outcome: 'refreshed' };
      case 'online': case 'unlock': case 'foreground': {
        const waiters = this.signalWaiters;
        this.signalWaiters = [];
        waiters.forEach((resolve) => resolve());
        return null;
      }
      default: return null;
    }
  }

  launch() {
    this.restored = this.restore();
    return this.restored;
  }

  async restore() {
    this.cached = new Set();
    this.session.send({ type: 'transition', transition: null, from: null, to: 'restoring', account: null, generation: this.generation, reason: 'launch' });
    let stored;
    for (;;) {
      try { stored = await this.tokenStore.read(); break; } catch (error) { await this.untilSignal(); }
    }
    if (!stored) {
      await this.endSession('restore-failed', 'noStoredSession', true);
      return { state: this.state };
    }
    this.tokens = stored;
    for (;;) {
      try {
        await this.api.get('/me'); // a 401 refreshes through the interceptor
        this.transition('restore-validated', 'storedSessionValidated');
        return { state: this.state };
      } catch (error) {
        if (error instanceof AuthRejected) {
          await this.endSession('restore-failed', 'storedSessionRejected', true);
          return { state: this.state };
        }
        await this.untilSignal(); // offline or the server is down: stay restoring, try again later
      }
    }
  }

  async signIn(email, password) {
    // Validate inputs (003's LoginUseCase) before any request.
    if (!email || !email.includes('@')) throw new AppError('invalidInput', 'Invalid email format');
    if (!password || password.length < 8) throw new AppError('invalidInput', 'Password must be at least 8 characters');
    if (this.state !== 'signedOut') throw new AppError('alreadySignedIn');
    this.transition('sign-in-started', 'userSignIn');
    let data;
    try {
      ({ data } = await this.authApi.post('/auth/login', { email, password }));
    } catch (error) {
      this.transition('sign-in-failed', 'invalidCredentials');
      throw new AppError(error.response ? 'invalidCredentials' : 'transportFailure', 'sign-in failed');
    }
    const tokens = { accessToken: data.access_token, refreshToken: data.refresh_token, account: data.account_id };
    await this.tokenStore.write(tokens);
    this.tokens = tokens;
    await this.api.get('/me');
    this.transition('sign-in-succeeded', 'credentialsAccepted');
    return { account: tokens.account };
  }

  async switchAccount(email, password) {
    if (this.state === 'authenticated') {
      await this.signOutRemotely(this.tokens);
      await this.endSession('account-switch', 'switchingAccount', false); // straight to signingIn
    } else if (this.state === 'refreshing') {
      await this.signOutRemotely(this.tokens);
      await this.endSession('sign-out-during-refresh', 'switchingAccount', false);
      this.transition('sign-in-started', 'switchingAccount');
    } else {
      return this.signIn(email, password);
    }
    return this.completeSwitch(email, password);
  }

  async completeSwitch(email, password) {
    let data;
    try {
      ({ data } = await this.authApi.post('/auth/login', { email, password }));
    } catch (error) {
      this.transition('sign-in-failed', 'invalidCredentials');
      throw new AppError('invalidCredentials', 'sign-in failed');
    }
    const tokens = { accessToken: data.access_token, refreshToken: data.refresh_token, account: data.account_id };
    await this.tokenStore.write(tokens);
    this.tokens = tokens;
    await this.api.get('/me');
    this.transition('sign-in-succeeded', 'credentialsAccepted');
    return { account: tokens.account };
  }

  async signOutRemotely(tokens) {
    try {
      await this.authApi.post('/auth/revoke', { token: tokens.refreshToken, token_type_hint: 'refresh_token' });
    } catch (error) {
      this.session.send({ type: 'log', level: 'notice', message: 'revocation failed; not retried' });
    }
  }

  async signOut() {
    if (this.state !== 'authenticated' && this.state !== 'refreshing') return null;
    const tokens = this.tokens;
    await this.endSession(this.state === 'authenticated' ? 'sign-out' : 'sign-out-during-refresh', 'userSignedOut', true);
    await this.signOutRemotely(tokens);
    return null;
  }

  async fetch(resource) {
    if (this.state === 'restoring') await this.restored; // the splash screen waits for checkAuth
    if (!this.tokens || (this.state !== 'authenticated' && this.state !== 'refreshing')) {
      throw new AppError('notAuthenticated', 'no session');
    }
    try {
      const { data } = await this.api.get(`/resources/${encodeURIComponent(resource)}`);
      const account = this.tokens ? this.tokens.account : null;
      this.session.send({ type: 'ui', event: 'content', resource, account, generation: this.generation, contentId: data.contentId });
      if (account) {
        this.cached.add(resource);
        await this.session.effect({ type: 'preferences', op: 'set', key: `cache/${account}/${resource}`, value: JSON.stringify(data) });
      }
      return { resource, account, contentId: data.contentId };
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error.response && error.response.status === 401) throw new AppError('unauthorized', 'refused after one retry');
      throw new AppError(error.response ? 'serverError' : 'transportFailure', 'request failed', !!error.response);
    }
  }
}

runAdapter({
  hello: {
    implementation: { name: 'axios-refresh-once', version: '1.0.0', language: 'JavaScript', platform: `node-${process.versions.node}` },
    capabilities: ['background-refresh'],
    http: 'loopback',
  },
  createClient: (session) => new App(session),
});
