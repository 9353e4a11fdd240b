/**
 * The live stock families (live/): subscriptions open and keys watched, read when scraped; poll
 * rounds with the upstream calls they made; events sent.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** What the live stock reports when scraped. */
export interface LiveState {
  subscriptions: Record<string, number>;
  watchedKeys: number;
}

/** One poll round, as the metrics count it. */
export interface LiveRound {
  calls: number;
  failed: boolean;
  plan: 'detail' | 'pages';
}

export interface LiveMetrics {
  round(round: LiveRound): void;
  event(field: string): void;
}

export function liveFamilies(registers: Registry[], state: () => LiveState): LiveMetrics {
  const subscriptions = new Gauge({
    name: 'gateway_live_subscriptions', help: 'Live subscriptions open, by field', labelNames: ['field'] as const, registers,
    collect() {
      for (const [field, open] of Object.entries(state().subscriptions)) subscriptions.set({ field }, open);
    },
  });
  const watched = new Gauge({
    name: 'gateway_live_watched_keys', help: 'Sites polled for live subscribers (plus one while every site is)', registers,
    collect() {
      watched.set(state().watchedKeys);
    },
  });
  const rounds = new Counter({
    name: 'gateway_live_polls_total', help: 'Poll rounds for live subscribers, by plan (detail, pages) and outcome',
    labelNames: ['plan', 'outcome'] as const, registers,
  });
  const calls = new Counter({ name: 'gateway_live_poll_calls_total', help: 'Upstream calls made by poll rounds', registers });
  const events = new Counter({ name: 'gateway_live_events_total', help: 'Live events sent, by field', labelNames: ['field'] as const, registers });
  return {
    round({ calls: made, failed, plan }) {
      rounds.inc({ plan, outcome: failed ? 'error' : 'ok' });
      calls.inc(made);
    },
    event: (field) => events.inc({ field }),
  };
}
