/**
 * The gateway's connection to Redis, shared by the cache's second level and the token store.
 *
 * Redis is an optimisation, never something a request depends on: every command is bounded
 * (`commandTimeoutMs`), nothing is queued while disconnected (a command fails at once), and
 * `run` turns any failure into `undefined`, for the caller to do what it would do alone. ioredis
 * reconnects in the background with backoff; meanwhile `up` is false and callers skip Redis.
 * A command that times out on a connection that looks fine (a stalled server) also takes Redis
 * out of use for a moment, so that a slow Redis costs one timeout, not one per cache miss.
 *
 * A second connection, in subscriber mode, hears the fills other replicas announce (notices.ts),
 * and whatever else is published on the channels `listen` names (the live reads of
 * live/fleet-poller.ts). It subscribes again to all of them each time it reconnects.
 */
import type { RedisOptions } from 'ioredis';
import { deadline, PASSED, type Deadline } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import { bounded } from './bounded.js';
import { connectTo, type RedisClient } from './clients.js';
import { createNotices, type Notices } from './notices.js';
import type { RedisTopology } from '../base/config/redis.js';

export interface RedisConnectionOptions {
  /** Where Redis is: one server, Sentinel or Cluster (clients.ts); only hosts and ports are logged. */
  topology: RedisTopology;
  /** Bound on each command, in ms; a slower answer counts as a failure. */
  commandTimeoutMs: number;
  /** The channel on which replicas announce fills (see notices.ts). */
  channel: string;
  /** Told of connection changes (info, warn) and failed commands (debug). Default: silent. */
  logger?: Logger;
  /** Told of every failed operation by name (metrics); must not throw. Default: none. */
  onError?(operation: string): void;
  /** How long Redis stays out of use after a command timed out on a live connection, in ms. Default 1000. */
  pauseAfterTimeoutMs?: number;
}

export interface RedisConnection extends Notices {
  /** The channel on which fills are announced. */
  readonly channel: string;
  /** Whether Redis is in use now: connected, and no command timed out in the last moment. */
  readonly up: boolean;
  /** Whether a command is worth preparing: Redis is up, or its first connection is being made. */
  readonly usable: boolean;
  /**
   * Whether a patient command is worth preparing: connected (or connecting), and no patient
   * command timed out in the last moment, even while a timed-out read keeps Redis out of use for
   * the others. What the fleet must do once (a token request) goes alone only when this is false.
   */
  readonly reachable: boolean;
  /**
   * Runs `command` if Redis is in use for its `kind` (at start-up, once the first connection is
   * made, waiting up to `commandTimeoutMs` for it); resolves its result, or `undefined` when Redis
   * is down or the command failed (counted as `operation`, and logged at debug). Never rejects.
   */
  run<T>(operation: string, command: (redis: RedisClient) => Promise<T>, kind?: CommandKind): Promise<T | undefined>;
  /** Counts a failure found by the caller (e.g. an unreadable value) as `operation`. */
  failed(operation: string): void;
  /**
   * Hands every message published on `channel` to `onMessage` until the returned function is
   * called. Messages published while the subscriber connection is down are lost.
   */
  listen(channel: string, onMessage: (message: string) => void): () => void;
  /** Whether the subscriber connection is up, so that what is published is heard. */
  readonly hearing: boolean;
  /** Closes both connections; later commands resolve `undefined`. */
  close(): Promise<void>;
}

/**
 * What a command is for, which sets how long it may take and when it runs:
 * - `read`: a request waits for it (a cache read). One bound; skipped while Redis is paused.
 * - `background`: nobody waits for it (a write, a release). `LONG_BOUNDS` bounds, since giving up
 *   early saves no one time; skipped while Redis is paused.
 * - `patient`: going alone costs the fleet a second token or a second load (the token, the fills'
 *   locks). `LONG_BOUNDS` bounds; runs while a timed-out read or write pauses Redis for the
 *   others, and only a patient command's own timeout pauses it for patient commands too.
 * Any timeout pauses Redis for reads and background commands.
 */
export type CommandKind = 'read' | 'background' | 'patient';

/** How long Redis stays out of use after a command timed out on a live connection, in ms. */
const PAUSE_AFTER_TIMEOUT_MS = 1000;
/** The bound of background and patient commands, in bounds (`commandTimeoutMs`). */
const LONG_BOUNDS = 3;
/**
 * ioredis's own command timeout, in bounds: a backstop that only clears from its queue a command
 * that a hung server never answers. `run`'s bound (`bounded`) is the one that counts.
 */
const BACKSTOP_BOUNDS = 10;
/** Reconnection backoff: 100 ms, doubling, at most 2 s (a lost Redis is found again quickly). */
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
  /**
   * Settles when the first connection is made; `undefined` once it is, or once it failed.
   * Commands sent before it is made (a replica starting) wait for it a little rather than go
   * alone, so N replicas starting at once still fetch things once.
   */
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
    // Each command is written at once. ioredis's auto-pipelining holds a command back until the
    // previous pipeline's answers are all read, so on a busy replica a command waited two
    // event-loop turns or more and timed out with Redis idle (the scale-out bench: hundreds of
    // `cache_write` timeouts, each pausing Redis for a second).
    enableAutoPipelining: false,
    retryStrategy: (times: number) => Math.min(RECONNECT_FIRST_MS * 2 ** Math.min(times - 1, 10), RECONNECT_MAX_MS),
  };
}
