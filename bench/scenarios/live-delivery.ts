/**
 * Whether every stock change reached every subscriber of its site, and how long it took: the
 * live scenario's verdict, worked out after the run from the changes the bench asked for and the
 * events each subscriber received.
 *
 * The rule, per subscriber of the site and per change `i` of lane L (to stock v_i, asked at
 * t_i): the change is delivered by the first event that arrived after t_i and shows L at v_i, or
 * at the value v_j of a later change j of L that had been asked for before that event arrived
 * (t_i < t_j < arrival). A change superseded by a later change of the same lane before the next
 * poll is thus delivered when the later value arrives; the gateway cannot show a value the
 * upstream no longer holds. Its latency is from its own t_i.
 *
 * One case owes no event: changes of a lane undone within one poll interval, back to the value
 * the subscriber last saw (L: 5 → 3 → 5 between two polls leaves the site as it was, and the
 * gateway rightly sends nothing). Change i is such when some change k ≥ i of L, asked less than
 * one interval after t_i, sets v_k to the value of L in the last event received before t_i.
 * These are counted apart (`undoneUnseen`); any other change with no delivering event by the end
 * of the run is lost.
 */
import { summariseLatency, type LatencySummary } from '../load/latency.js';

/** A change the bench asked the mock for, and when (`performance.now()`, just before asking). */
export interface AskedChange {
  siteCode: string;
  pointCode: string;
  laneIndex: number;
  to: number;
  askedAt: number;
}

/** One event a subscriber received: when, and every lane's stock keyed `pointCode/laneIndex`. */
export interface ReceivedEvent {
  at: number;
  stock: ReadonlyMap<string, number>;
}

/** What one subscriber watched and received, in arrival order. */
export interface SubscriberLog {
  siteCode: string;
  events: readonly ReceivedEvent[];
}

/** The verdict over every subscriber. */
export interface DeliveryResult {
  /** Changes times the subscribers of their site: the deliveries owed. */
  expected: number;
  delivered: number;
  /** Of `delivered`, those delivered by a later change's value. */
  deliveredSuperseded: number;
  /** Changes undone within one interval before any event showed them: no event owed (not in `delivered`). */
  undoneUnseen: number;
  lost: number;
  /** From asking for the change to the event that delivered it, in ms. */
  latencyMs: LatencySummary;
  /** Events after a subscriber's first that showed the same stock as the one before (sent without a change). */
  eventsWithoutChange: number;
  /** Lanes a subscriber last saw at another value than the one its last change set. */
  staleAtEnd: number;
}

/** The key of a lane in `ReceivedEvent.stock`. */
export function laneKey(pointCode: string, laneIndex: number): string {
  return `${pointCode}/${laneIndex}`;
}

/**
 * Judge the delivery of `changes` to `subscribers` (see the module comment for the rule);
 * `intervalMs` is the gateway's poll interval.
 */
export function judgeDelivery(changes: readonly AskedChange[], subscribers: readonly SubscriberLog[], intervalMs: number): DeliveryResult {
  const byLane = changesByLane(changes);
  const latencies: number[] = [];
  let expected = 0;
  let deliveredSuperseded = 0;
  let undoneUnseen = 0;
  let staleAtEnd = 0;
  for (const subscriber of subscribers) {
    for (const [key, laneChanges] of byLane.get(subscriber.siteCode) ?? []) {
      expected += laneChanges.length;
      laneChanges.forEach((change, i) => {
        const found = deliveryOf(laneChanges, i, key, subscriber.events);
        if (found !== undefined) {
          latencies.push(found.at - change.askedAt);
          if (found.superseded) deliveredSuperseded += 1;
        } else if (undoneWithin(laneChanges, i, key, subscriber.events, intervalMs)) undoneUnseen += 1;
      });
      if (subscriber.events.at(-1)?.stock.get(key) !== laneChanges.at(-1)?.to) staleAtEnd += 1;
    }
  }
  return {
    expected,
    delivered: latencies.length,
    deliveredSuperseded,
    undoneUnseen,
    lost: expected - latencies.length - undoneUnseen,
    latencyMs: summariseLatency(latencies, 1),
    eventsWithoutChange: subscribers.reduce((sum, s) => sum + repeats(s.events), 0),
    staleAtEnd,
  };
}

// Private: changes by site, then by lane, each lane's in the order asked.
function changesByLane(changes: readonly AskedChange[]): Map<string, Map<string, AskedChange[]>> {
  const bySite = new Map<string, Map<string, AskedChange[]>>();
  for (const change of [...changes].sort((a, b) => a.askedAt - b.askedAt)) {
    const lanes = bySite.get(change.siteCode) ?? new Map<string, AskedChange[]>();
    bySite.set(change.siteCode, lanes);
    const key = laneKey(change.pointCode, change.laneIndex);
    lanes.set(key, [...(lanes.get(key) ?? []), change]);
  }
  return bySite;
}

// Private: the first event delivering change `i` of a lane, and whether a later change's value did.
function deliveryOf(laneChanges: readonly AskedChange[], i: number, key: string, events: readonly ReceivedEvent[]):
  { at: number; superseded: boolean } | undefined {
  const change = laneChanges[i]!;
  for (const event of events) {
    if (event.at <= change.askedAt) continue;
    const shown = event.stock.get(key);
    if (shown === change.to) return { at: event.at, superseded: false };
    const later = laneChanges.slice(i + 1).some((next) => next.askedAt < event.at && next.to === shown);
    if (later) return { at: event.at, superseded: true };
  }
  return undefined;
}

// Private: whether change i was undone within one interval, back to what the subscriber last saw before it.
function undoneWithin(laneChanges: readonly AskedChange[], i: number, key: string, events: readonly ReceivedEvent[], intervalMs: number): boolean {
  const change = laneChanges[i]!;
  const seen = events.filter((event) => event.at < change.askedAt).at(-1)?.stock.get(key);
  return laneChanges.slice(i).some((later) => later.askedAt - change.askedAt < intervalMs && later.to === seen);
}

// Private: events showing the same stock as the event before them.
function repeats(events: readonly ReceivedEvent[]): number {
  let count = 0;
  for (let i = 1; i < events.length; i += 1) {
    const before = events[i - 1]!.stock;
    const now = events[i]!.stock;
    if (before.size === now.size && [...now].every(([key, stock]) => before.get(key) === stock)) count += 1;
  }
  return count;
}
