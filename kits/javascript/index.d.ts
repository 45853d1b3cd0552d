// Type declarations of session-conformance-kit (protocol v1). See README.md.
import type { Agent } from 'http';

export const PROTOCOL: 1;

export interface Implementation { name: string; version: string; language?: string; platform?: string }

export interface HelloOptions {
  implementation?: Implementation;
  /** `background-refresh`, `offline-browsing`; `reset` is added unless `reset: false`. `fork` is refused. */
  capabilities?: string[];
  refreshTriggers?: Array<'unauthorized' | 'expiry' | 'background'>;
  offlinePolicy?: { cachedResources: string[] };
  /** `message` (default): HTTP as `http` effects; `loopback`: real HTTP to the runner's server. */
  http?: 'message' | 'loopback';
}

export interface Command { type: 'command'; id: string; command: string; email?: string; password?: string; resource?: string; [field: string]: unknown }

export interface Client {
  /** Answers the command: resolves with the result's `content` (or null), rejects with a CommandError. */
  perform(command: Command): Promise<unknown> | unknown;
  /** Called on `reset`, when this instance is dropped. */
  dispose?(): void;
}

export interface AdapterOptions {
  hello?: HelloOptions;
  /** Called at each `welcome` (a new instance: the first, and after each `reset`). */
  createClient(session: Session, welcome: Record<string, any>): Client | Promise<Client>;
  /** Declare and serve `reset` (default true). */
  reset?: boolean;
  /** Count pending refed real timers and file operations as runnable work at a barrier (default true). */
  waitForTimers?: boolean;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  errorOutput?: { write(text: string): unknown };
  exit?: (code: number) => void;
}

export interface HttpRequest { method?: string; path: string; headers?: Record<string, string>; body?: unknown }
export interface HttpResponse { status: number; headers: Record<string, string>; body: unknown }
export interface Reply { type: 'reply'; id: string; value?: string | null; response?: HttpResponse; failure?: { code: string; definite?: boolean }; error?: { code: string; definite?: boolean } }

export interface Store {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, accessibility?: 'afterFirstUnlock' | 'whenUnlocked'): Promise<void>;
  delete(key: string): Promise<void>;
}

export class Sleep {
  readonly id: string;
  readonly seconds: number;
  readonly replied: boolean;
  /** true when the runner's clock reached it, false when woken first. */
  readonly done: Promise<boolean>;
  wake(reason?: string): void;
}

export class Deadline {
  readonly seconds: number;
  /** The request's tag in loopback mode (X-Conformance-Request), null in message mode. */
  readonly tag: string | null;
  readonly signal: AbortSignal;
  readonly headers: Record<string, string>;
  readonly expired: boolean;
  settle(): void;
}

export class Session {
  readonly welcome: Record<string, any> | null;
  readonly world: Record<string, any> | null;
  readonly baseURL: string | null;
  readonly loopback: boolean;
  readonly seed: bigint;
  readonly clock: { wall: number; monotonic: number };
  readonly storage: Store;
  readonly preferences: Store;
  readonly httpStarted: number;
  readonly httpFinished: number;
  readonly httpAgent: Agent;
  now(): number;
  monotonic(): number;
  random(): number;
  send(message: Record<string, unknown>): void;
  transition(id: string | null, fields: { from: string | null; to: string; account?: string | null; generation: number; reason: string }): void;
  ui(event: string, fields?: Record<string, unknown>): void;
  log(level: string, message: string): void;
  effect(message: Record<string, unknown>): Promise<Reply>;
  sleep(seconds: number): Sleep;
  abandon(id: string, reason?: string): boolean;
  http(request: HttpRequest, options?: { deadline?: number | null; cause?: string; signal?: AbortSignal | null }): Promise<HttpResponse>;
  startDeadline(seconds: number, options?: { onExpire?: (deadline: Deadline) => void }): Deadline;
  withDeadline<T>(seconds: number, start: (deadline: Deadline) => Promise<T>): Promise<T>;
  cause(): string | undefined;
  detached<T>(fn: () => T): T;
  newTag(): string;
  abandonRequest(tag: string, reason?: string): void;
  fetch(input: string | URL, init?: RequestInit & { deadline?: number }): Promise<Response>;
  instrumentAxios<T>(instance: T, options?: { axios?: unknown; deadline?: number | null }): T;
}

export class Host {
  constructor(options: AdapterOptions);
  readonly session: Session;
  start(): this;
  idle(): Promise<void>;
}

export function runAdapter(options: AdapterOptions): Host;

export class CommandError extends Error {
  constructor(code: string, message?: string, options?: { definite?: boolean });
  code: string;
  definite: boolean;
}
export class EffectError extends Error { code: string; definite: boolean; effect: string }
export class DeadlineExceeded extends Error { code: 'ETIMEDOUT'; definite: false; seconds: number }
export class ProtocolError extends Error {}
export class LineDecoder {
  constructor(options?: { maxLine?: number });
  push(chunk: Buffer | string): Array<Record<string, any>>;
  end(): [];
}
