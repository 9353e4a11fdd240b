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
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logger.js';
import { createNotices, type Notices } from './notices.js';

export interface RedisConnectionOptions {
  /** `redis://` or `rediss://` URL, credentials included; never logged. */
  url: string;
  /** Bound on each command, in ms; a slower answer counts as a failure. */
  commandTimeoutMs: number;
  /** The channel on which replicas announce fills (see notices.ts). */
  channel: string;
  /** Told of connection changes (info, warn) and failed commands (debug). Default: silent. */
  logger?: Logger;
  /** Told of every failed operation by name (metrics); must not throw. Default: none. */
  onError?(operation: string): void;
}

export interface RedisConnection extends Notices {
  /** The channel on which fills are announced. */
  readonly channel: string;
  /** Whether Redis is in use now: connected, and no command timed out in the last moment. */
  readonly up: boolean;
  /** Whether a command is worth preparing: Redis is up, or its first connection is being made. */
  readonly usable: boolean;
  /**
   * Runs `command` if Redis is up (at start-up, once the first connection is made, waiting up to
   * `commandTimeoutMs` for it); resolves its result, or `undefined` when Redis is down or the
   * command failed (counted as `operation`, and logged at debug). Never rejects.
   */
  run<T>(operation: string, command: (redis: Redis) => Promise<T>): Promise<T | undefined>;
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

/** How long Redis stays out of use after a command timed out on a live connection, in ms. */
const PAUSE_AFTER_TIMEOUT_MS = 1000;
/** Reconnection backoff: 100 ms, doubling, at most 2 s (a lost Redis is found again quickly). */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 2000;
const CONNECT_TIMEOUT_MS = 2000;

export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const { logger } = options;
  const redis = new Redis(options.url, clientOptions(options.commandTimeoutMs));
  // The subscriber queues its SUBSCRIBE until connected; it runs no other command.
  const subscriber = redis.duplicate({ enableOfflineQueue: true, autoResubscribe: false });
  const notices = createNotices(subscriber, options.channel);
  const listeners = createListeners(subscriber);
  const state = followConnection(redis, logger);
  subscriber.on('error', (error: Error) => logger?.debug({ err: error.message }, 'redis subscriber error'));
  subscriber.on('ready', () => {
    subscriber.subscribe(options.channel, ...listeners.channels()).catch(() => {}); // tried again on the next 'ready'
  });

  const isUp = () => !state.closed && redis.status === 'ready' && Date.now() >= state.pausedUntil;
  const connecting = () => !state.closed && state.firstConnection !== undefined;
  const failed = (operation: string) => options.onError?.(operation);

  async function ready(): Promise<boolean> {
    if (isUp()) return true;
    if (!connecting()) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.commandTimeoutMs)));
    await Promise.race([state.firstConnection, late]);
    clearTimeout(timer);
    return isUp();
  }

  return {
    channel: options.channel,
    get up() {
      return isUp();
    },
    get usable() {
      return isUp() || connecting();
    },
    async run(operation, command) {
      if (!(await ready())) return undefined;
      try {
        return await command(redis);
      } catch (error) {
        failed(operation);
        // A refused command (WRONGTYPE, a script error) says nothing of the connection's health.
        if ((error as Error).name !== 'ReplyError') state.pausedUntil = Date.now() + PAUSE_AFTER_TIMEOUT_MS;
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
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}

// Private: the handlers of each channel that `listen` named, and its (un)subscriptions.
function createListeners(subscriber: Redis) {
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
  /** No command before this time (ms since the epoch): a command timed out. */
  pausedUntil: number;
  /**
   * Settles when the first connection is made; `undefined` once it is, or once it failed.
   * Commands sent before it is made (a replica starting) wait for it a little rather than go
   * alone, so N replicas starting at once still fetch things once.
   */
  firstConnection: Promise<void> | undefined;
}

// Private: follows the command connection: its first connection, and each loss (logged once).
function followConnection(redis: Redis, logger: Logger | undefined): ConnectionState {
  const state: ConnectionState = { closed: false, pausedUntil: 0, firstConnection: undefined };
  state.firstConnection = new Promise((resolve) => redis.once('ready', resolve));
  let connected = false;
  redis.on('ready', () => {
    connected = true;
    state.firstConnection = undefined;
    logger?.info({ redis: where(redis) }, 'redis connected: replicas share the cache and the token');
  });
  redis.on('close', () => {
    state.firstConnection = undefined; // a first attempt that failed: Redis is down, no waiting
    if (!connected || state.closed) return;
    connected = false;
    logger?.warn({ redis: where(redis) }, 'redis connection lost: caching in-process and using own token until it is back');
  });
  // ioredis reports every failed reconnection as an 'error'; the loss above is logged once.
  redis.on('error', (error: Error) => logger?.debug({ err: error.message }, 'redis connection error'));
  return state;
}

// Private: bounded commands, no offline queue, quick reconnection with backoff.
function clientOptions(commandTimeoutMs: number): RedisOptions {
  return {
    commandTimeout: commandTimeoutMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    enableAutoPipelining: true,
    retryStrategy: (times: number) => Math.min(RECONNECT_FIRST_MS * 2 ** Math.min(times - 1, 10), RECONNECT_MAX_MS),
  };
}

// Private: where Redis is, for logs: host and port only (the URL may carry a password).
function where(redis: Redis): string {
  return `${redis.options.host ?? '?'}:${redis.options.port ?? '?'}`;
}
