'use strict';
// A fake runner for the tests: a Host on in-memory streams, its output parsed line by line.

const { PassThrough } = require('stream');
const { Host } = require('..');

function harness(options) {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines = [];
  const waiters = [];
  const stderr = [];
  let text = '';
  output.on('data', (chunk) => {
    text += chunk;
    let newline;
    while ((newline = text.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(text.slice(0, newline)));
      text = text.slice(newline + 1);
    }
    for (const waiter of [...waiters]) waiter.check();
  });
  let resolveExit;
  const exited = new Promise((resolve) => { resolveExit = resolve; });
  const host = new Host({
    input,
    output,
    errorOutput: { write: (line) => stderr.push(line) },
    exit: (code) => resolveExit(code),
    ...options,
  });
  host.start();

  /** The first line from index `from` on that matches `predicate`. */
  function next(predicate, from = 0) {
    return new Promise((resolve) => {
      const waiter = {
        check() {
          const index = lines.findIndex((line, i) => i >= from && predicate(line));
          if (index >= 0) {
            waiters.splice(waiters.indexOf(waiter), 1);
            resolve(lines[index]);
          }
        },
      };
      waiters.push(waiter);
      waiter.check();
    });
  }

  let barriers = 0;
  return {
    host,
    input,
    lines,
    stderr,
    exited,
    next,
    send(...messages) {
      for (const message of messages) input.write(JSON.stringify(message) + '\n');
    },
    /** Sends `messages` then a barrier; resolves with what the adapter sent before answering it (the answer
     *  last). */
    async round(messages = [], extra = {}) {
      barriers += 1;
      const id = `b${barriers}`;
      const from = lines.length;
      this.send(...messages, { type: 'barrier', id, ...extra });
      await next((line) => line.type === 'barrier' && line.id === id, from);
      return lines.slice(from, lines.indexOf(lines.find((line, i) => i >= from && line.type === 'barrier' && line.id === id)) + 1);
    },
    welcome(extra = {}) {
      return this.round([{ type: 'welcome', protocol: 1, seed: '42', clock: { wall: 1767225600, monotonic: 0 }, ...extra }]);
    },
  };
}

module.exports = { harness };
