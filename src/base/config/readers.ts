/** Typed readers of environment variables: each records a problem instead of throwing; none echoes a secret. */
import type { PersistedFormatSetting } from './persisted-formats.js';
import { readPersistedOperationsFile, type PersistedOperations } from './persisted-operations.js';

export type Env = Record<string, string | undefined>;

/** Visible ASCII: no spaces, nothing a header cannot carry. */
const SAFE_KEY = /^[\x21-\x7e]+$/;

export interface Reader {
  int(name: string, fallback: number, min: number, max: number): number;
  /** A decimal number from `min` to `max`. */
  number(name: string, fallback: number, min: number, max: number): number;
  string(name: string, fallback: string): string;
  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T;
  url(name: string): string | undefined;
  /** A `redis://` or `rediss://` URL with a host; never echoed (it may carry a password). */
  redisUrl(name: string): string | undefined;
  /** Comma-separated secrets, each `minLength` or more visible ASCII characters; never echoed. */
  keys(name: string, minLength: number): readonly string[];
  /** `true`/`false`/`1`/`0`, any case. */
  bool(name: string, fallback: boolean): boolean;
  /** `*`, `none`, or comma-separated origins (`https://app.example.com`). */
  origins(name: string, fallback: readonly string[]): readonly string[];
  /** The list of persisted documents a file names, read in `format` (persisted-formats.ts), refused over `maxBytes`. */
  persistedOperations(name: string, format: PersistedFormatSetting, maxBytes: number): PersistedOperations | undefined;
}

export function createReader(env: Env, problems: string[]): Reader {
  return {
    int(name, fallback, min, max) {
      const raw = env[name];
      if (!present(raw)) return fallback;
      const value = Number(raw.trim());
      if (!Number.isInteger(value) || value < min || value > max) {
        problems.push(`${name} must be an integer from ${min} to ${max}, but got: ${JSON.stringify(raw)}`);
        return fallback;
      }
      return value;
    },
    string(name, fallback) {
      const raw = env[name];
      return present(raw) ? raw.trim() : fallback;
    },
    oneOf(name, fallback, allowed) {
      const raw = env[name];
      if (!present(raw)) return fallback;
      const value = raw.trim().toLowerCase();
      const match = allowed.find((option) => option === value);
      if (match === undefined) {
        problems.push(`${name} must be one of ${allowed.join(', ')}, but got: ${JSON.stringify(raw)}`);
        return fallback;
      }
      return match;
    },
    keys(name, minLength) {
      const raw = env[name];
      if (!present(raw)) return [];
      const keys = raw.split(',').map((key) => key.trim());
      // Positions only: a key is a secret, and a typo in one would show most of it.
      const bad = keys.flatMap((key, index) => (SAFE_KEY.test(key) && key.length >= minLength ? [] : [index + 1]));
      if (bad.length === 0) return keys;
      problems.push(`${name} must be comma-separated keys, each of at least ${minLength} visible ASCII characters, `
        + `but key ${bad.join(', ')} of ${keys.length} is not (values not shown)`);
      return [];
    },
    url(name) {
      const raw = env[name];
      if (!present(raw)) return undefined;
      // The value is not echoed: a URL may carry credentials.
      if (!URL.canParse(raw.trim()) || !/^https?:$/.test(new URL(raw.trim()).protocol)) {
        problems.push(`${name} must be an absolute http or https URL`);
        return undefined;
      }
      return raw.trim().replace(/\/+$/, '');
    },
    redisUrl(name) {
      const raw = env[name];
      if (!present(raw)) return undefined;
      const url = URL.canParse(raw.trim()) ? new URL(raw.trim()) : undefined;
      if (!url || !/^rediss?:$/.test(url.protocol) || url.hostname === '') {
        problems.push(`${name} must be a redis:// or rediss:// URL with a host (value not shown: it may hold a password)`);
        return undefined;
      }
      return raw.trim();
    },
    number(name, fallback, min, max) {
      const raw = env[name];
      if (!present(raw)) return fallback;
      const value = Number(raw.trim());
      if (!Number.isFinite(value) || value < min || value > max) {
        problems.push(`${name} must be a number from ${min} to ${max}, but got: ${JSON.stringify(raw)}`);
        return fallback;
      }
      return value;
    },
    bool(name, fallback) {
      const raw = env[name];
      if (!present(raw)) return fallback;
      const value = BOOLEANS.get(raw.trim().toLowerCase());
      if (value === undefined) problems.push(`${name} must be true, false, 1 or 0, but got: ${JSON.stringify(raw)}`);
      return value ?? fallback;
    },
    origins(name, fallback) {
      const raw = env[name];
      if (!present(raw)) return fallback;
      const value = raw.trim().toLowerCase();
      if (value === '*' || value === 'none') return value === '*' ? ['*'] : [];
      const listed = raw.split(',').map((text) => text.trim());
      const bad = listed.filter((text) => toOrigin(text) === undefined);
      if (bad.length === 0) return listed.map((text) => toOrigin(text)!);
      problems.push(`${name} must be *, none or comma-separated origins like https://app.example.com, but got: ${JSON.stringify(bad.join(','))}`);
      return fallback;
    },
    persistedOperations(name, format, maxBytes) {
      const raw = env[name];
      return present(raw) ? readPersistedOperationsFile(name, raw.trim(), format, problems, maxBytes) : undefined;
    },
  };
}

const BOOLEANS = new Map([['true', true], ['1', true], ['false', false], ['0', false]]);

// Private: an origin as browsers send it (`https://app.example.com`), or undefined.
function toOrigin(text: string): string | undefined {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) return undefined;
  return url.origin;
}

export function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
