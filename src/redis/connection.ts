/**
 * The connection to Redis, an optimisation no request depends on: commands are bounded, never
 * queued while disconnected, and a failure is `undefined` so the caller goes alone. A timeout
 * pauses Redis for a moment, so a stalled server costs one timeout, not one per miss. A second,
 * subscriber connection hears fill notices (notices.ts) and the channels `listen` names.
 */
import type { RedisOptions } from 'ioredis';
import { deadline, PASSED, type Deadline } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import { bounded } from './bounded.js';
import { connectTo, type RedisClient } from './clients.js';
import { createNotices, type Notices } from './notices.js';
import type { RedisTopology } from '../base/config/redis.js';

export interface RedisConnectionOptions {
  /** Where Redis is: one server, Sentinel or Cluster (clients.ts). */
  topology: RedisTopology;
  /** Bound on each command, in ms; a slower answer counts as a failure. */
  commandTimeoutMs: number;
  /** The channel on which replicas announce fills. */
  channel: string;
  /** Told of connection changes (info, warn) and failed commands (debug). Default: silent. */
  logger?: Logger;
  /** Told of every failed operation by name; must not throw. Default: none. */
  onError?(operation: string): void;
  /** How long Redis stays out of use after a command timed out on a live connection, in ms. Default 1000. */
  pauseAfterTimeoutMs?: number;
}

export interface RedisConnection extends Notices {
  readonly channel: string;
  /** Whether Redis is in use now: connected, and not paused by a timeout. */
  readonly up: boolean;
  /** Whether a command is worth preparing: Redis is up, or its first connection is being made. */
  readonly usable: boolean;
  /** Whether a patient command is worth preparing: connected (or connecting) and no patient command timed out lately. */
  readonly reachable: boolean;
  /** Runs `command` if Redis is in use for its `kind`: its result, or `undefined` when it failed. Never rejects. */
  run<T>(operation: string, command: (redis: RedisClient) => Promise<T>, kind?: CommandKind): Promise<T | undefined>;
  /** Counts a failure found by the caller as `operation`. */
  failed(operation: string): void;
  /** Hands each message on `channel` to `onMessage` until unsubscribed; messages sent while down are lost. */
  listen(channel: string, onMessage: (message: string) => void): () => void;
  /** Whether the subscriber connection is up. */
  readonly hearing: boolean;
  /** Closes both connections; later commands resolve `undefined`. */
  close(): Promise<void>;
}

/**
 * `read`: a request waits (one bound); `background`: nobody waits; `patient`: going alone costs the
 * fleet a second token or load, so only a patient command's own timeout pauses patient commands.
 */
export type CommandKind = 'read' | 'background' | 'patient';

const PAUSE_AFTER_TIMEOUT_MS = 1000;
/** The bound of background and patient commands, in bounds (`commandTimeoutMs`). */
const LONG_BOUNDS = 3;
/** ioredis's own command timeout, in bounds: only a backstop for a hung server; `bounded` is the one that counts. */
const BACKSTOP_BOUNDS = 10;
/** Reconnection backoff: 100 ms, doubling, at most 2 s. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 2000;
const CONNECT_TIMEOUT_MS = 2000;

export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const { logger } = options;
  // The subscriber queues its SUBSCRIBE until connected; it runs no other command.
  const { redis, subscriber, where } = connectTo(options.topology, clientOptions(options.commandTimeoutMs));
  const notices = createNotices(subscriber, options.channel);
  const listeners = createListeners(subscriber);
  const state = followConnection(redis, where, logger);
  subscriber.on('error', (error: Error) => logger?.debug({ err: error.message }, 'redis subscriber error'));
  subscriber.on('ready', () => {
    subscriber.subscribe(options.channel, ...listeners.channels()).catch(() => {}); // tried again on the next 'ready'
  });

  const connected = () => !state.closed && redis.status === 'ready';
  const isUp = () => connected() && state.paused.passed;
  const isReachable = () => connected() && state.patientPaused.passed;
  const connecting = () => !state.closed && state.firstConnection !== undefined;
  const failed = (operation: string) => options.onError?.(operation);

  async function ready(kind: CommandKind): Promise<boolean> {
    const inUse = kind === 'patient' ? isReachable : isUp;
    if (inUse()) return true;
    if (!connecting()) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.commandTimeoutMs)));
    await Promise.race([state.firstConnection, late]);
    clearTimeout(timer);
    return inUse();
  }

  return {
    channel: options.channel,
    get up() {
      return isUp();
    },
    get usable() {
      return isUp() || connecting();
    },
    get reachable() {
      return isReachable() || connecting();
    },
    async run(operation, command, kind = 'read') {
      if (!(await ready(kind))) return undefined;
      try {
        return await bounded(command(redis), options.commandTimeoutMs * (kind === 'read' ? 1 : LONG_BOUNDS));
      } catch (error) {
        failed(operation);
        // A refused command (WRONGTYPE, a script error) says nothing of the connection's health.
        if ((error as Error).name !== 'ReplyError') {
          const pauseMs = options.pauseAfterTimeoutMs ?? PAUSE_AFTER_TIMEOUT_MS;
          state.paused.cancel();
          state.paused = deadline(pauseMs);
          if (kind === 'patient') {
            state.patientPaused.cancel();
            state.patientPaused = deadline(pauseMs);
          }
        }
        logger?.debug({ operation, err: (error as Error).message }, 'redis command failed');
        return undefined;
      }
    },
    failed,
    watch: (key) => notices.watch(key),
    listen: listeners.listen,
    get hearing() {
      return !state.closed && subscriber.status === 'ready';
    },
    async close() {
      state.closed = true;
      state.paused.cancel();
      state.patientPaused.cancel();
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}

// Private: the handlers of each channel that `listen` named, and its (un)subscriptions.
function createListeners(subscriber: RedisClient) {
  const handlers = new Map<string, Set<(message: string) => void>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel) ?? []) {
      try {
        handler(message);
      } catch {
        // a listener's failure is its own; the others still hear the message
      }
    }
  });
  const ready = () => subscriber.status === 'ready';
  return {
    channels: () => [...handlers.keys()],
    listen(channel: string, onMessage: (message: string) => void): () => void {
      let set = handlers.get(channel);
      if (set === undefined) {
        handlers.set(channel, (set = new Set()));
        if (ready()) subscriber.subscribe(channel).catch(() => {}); // else on the next 'ready'
      }
      set.add(onMessage);
      return () => {
        set.delete(onMessage);
        if (set.size > 0 || handlers.get(channel) !== set) return;
        handlers.delete(channel);
        if (ready()) subscriber.unsubscribe(channel).catch(() => {});
      };
    },
  };
}

interface ConnectionState {
  closed: boolean;
  /** No command before this passes: a command timed out. */
  paused: Deadline;
  /** No patient command before this passes: a patient command timed out. */
  patientPaused: Deadline;
  /** Settles on the first connection (`undefined` after), so replicas starting together still fetch once. */
  firstConnection: Promise<void> | undefined;
}

// Private: follows the command connection: its first connection, and each loss (logged once).
function followConnection(redis: RedisClient, where: string, logger: Logger | undefined): ConnectionState {
  const state: ConnectionState = { closed: false, paused: PASSED, patientPaused: PASSED, firstConnection: undefined };
  state.firstConnection = new Promise((resolve) => redis.once('ready', resolve));
  let connected = false;
  redis.on('ready', () => {
    connected = true;
    state.firstConnection = undefined;
    logger?.info({ redis: where }, 'redis connected: replicas share the cache and the token');
  });
  redis.on('close', () => {
    state.firstConnection = undefined; // a first attempt that failed: Redis is down, no waiting
    if (!connected || state.closed) return;
    connected = false;
    logger?.warn({ redis: where }, 'redis connection lost: caching in-process and using own token until it is back');
  });
  // ioredis reports every failed reconnection as an 'error'; the loss above is logged once.
  redis.on('error', (error: Error) => logger?.debug({ err: error.message }, 'redis connection error'));
  return state;
}

// Private: no offline queue, quick reconnection with backoff; `run` bounds each command (`bounded`).
function clientOptions(commandTimeoutMs: number): RedisOptions {
  return {
    commandTimeout: commandTimeoutMs * BACKSTOP_BOUNDS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    // Auto-pipelining holds a command back until the previous pipeline is read, so on a busy
    // replica commands time out with Redis idle.
    enableAutoPipelining: false,
    retryStrategy: (times: number) => Math.min(RECONNECT_FIRST_MS * 2 ** Math.min(times - 1, 10), RECONNECT_MAX_MS),
  };
}
