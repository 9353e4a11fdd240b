import { ConfigError, loadConfig } from '../../src/base/config/config.js';

/** The problems `loadConfig` reports for `env` (none: an empty list). */
export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}
