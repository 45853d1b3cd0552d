'use strict';
// JSON Lines framing (docs/adapter-protocol.md, Framing): one JSON object per `\n`-terminated UTF-8 line, at most
// 1 MiB. Bytes may arrive in any chunking: a line (and a multi-byte character) may be split anywhere.

const MAX_LINE = 1 << 20;

/** A protocol violation by the runner's input: the adapter reports it on stderr and exits. Its message never
 *  quotes the input (a line may hold token values). */
class ProtocolError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Splits a byte stream into lines and parses each into a message object. */
class LineDecoder {
  constructor({ maxLine = MAX_LINE } = {}) {
    this.maxLine = maxLine;
    this.pending = [];
    this.pendingLength = 0;
    this.lineNumber = 0;
    this.utf8 = new TextDecoder('utf-8', { fatal: true });
  }

  /** Feeds a chunk (Buffer or string); returns the messages of the lines it completed, in order.
   *  Throws ProtocolError for a line that is too long, not UTF-8, not JSON, or not a message. */
  push(chunk) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const messages = [];
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(10, start);
      if (newline < 0) break;
      const part = bytes.subarray(start, newline);
      const line = this.pendingLength ? Buffer.concat([...this.pending, part]) : part;
      this.pending = [];
      this.pendingLength = 0;
      start = newline + 1;
      this.lineNumber += 1;
      if (line.length > this.maxLine) throw new ProtocolError(`line ${this.lineNumber} is longer than ${this.maxLine} bytes`);
      const message = this.parse(line);
      if (message) messages.push(message);
    }
    if (start < bytes.length) {
      const rest = bytes.subarray(start);
      this.pending.push(Buffer.from(rest)); // a copy: the caller may reuse its buffer
      this.pendingLength += rest.length;
      if (this.pendingLength > this.maxLine) {
        throw new ProtocolError(`line ${this.lineNumber + 1} is longer than ${this.maxLine} bytes`);
      }
    }
    return messages;
  }

  /** The input ended: a last line without its `\n` is an error (the protocol terminates every line). */
  end() {
    if (this.pendingLength && Buffer.concat(this.pending).toString('utf8').trim()) {
      throw new ProtocolError(`line ${this.lineNumber + 1} ends without a newline`);
    }
    return [];
  }

  parse(line) {
    let text;
    try {
      text = this.utf8.decode(line);
    } catch (error) {
      throw new ProtocolError(`line ${this.lineNumber} is not UTF-8`);
    }
    if (!text.trim()) return null;
    let message;
    try {
      message = JSON.parse(text);
    } catch (error) {
      // V8's message quotes the input; say only where.
      throw new ProtocolError(`line ${this.lineNumber} is not JSON`);
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      throw new ProtocolError(`line ${this.lineNumber} is not a JSON object`);
    }
    if (typeof message.type !== 'string') {
      throw new ProtocolError(`line ${this.lineNumber} has no "type"`);
    }
    return message;
  }
}

/** One message as a line of the protocol. */
function encode(message) {
  return JSON.stringify(message) + '\n';
}

module.exports = { LineDecoder, ProtocolError, encode, MAX_LINE };
