/**
 * "Machines at a site": the site chosen in "Sites in a city" (sites-panel.ts), its machines and
 * each machine's lanes with their product and stock, live.
 *
 * While a site is shown, the panel holds one `Subscription.siteStock(code:)` (GraphQL over SSE,
 * client.ts): the gateway pushes the site at once, then again whenever a lane's stock, the
 * site's state or its hours change, and the table is redrawn from each push, without a reload.
 * Showing another site ends the subscription first; so does leaving the page.
 *
 * When the gateway cannot read the stock (the upstream fails), it pushes an error and keeps the
 * subscription open; the panel shows the error and keeps the last stock it had, marked with its
 * time, until the next push.
 */
import type { Client, CombinedError } from '@urql/core';
import { onEnd, pipe, subscribe } from 'wonka';
import { SiteStockDocument, type SiteLanesFragment } from './generated/graphql';
import { byId, element, showError, showLoading, showRows, type PanelView } from './render';

/** A site as the sites list knows it: enough to name it before its first push. */
export interface ChosenSite {
  code: string;
  name: string;
}

export interface SiteStockPanel {
  /** Shows `site` live, in place of the site shown (whose subscription ends). */
  show(site: ChosenSite): void;
}

/** What the "live" badge says: the subscription's state, as the panel last saw it. */
type LiveState = 'connecting' | 'live' | 'paused' | 'ended';

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  paused: 'Paused',
  ended: 'Not live',
};

const time = new Intl.DateTimeFormat('en-GB', { timeStyle: 'medium' });

export function mountSiteStockPanel(client: Client): SiteStockPanel {
  const view: PanelView = {
    status: byId('site-stock-status', HTMLElement),
    error: byId('site-stock-error', HTMLElement),
    table: byId('site-stock', HTMLTableElement),
  };
  const badge = byId('site-live', HTMLElement);
  const resume = byId('site-live-resume', HTMLButtonElement);
  const panel = view.table.closest('section') ?? view.table;
  let shown: ChosenSite | undefined;
  let current: { unsubscribe(): void } | undefined;

  const setLive = (state: LiveState) => {
    badge.hidden = false;
    badge.dataset.state = state;
    badge.textContent = LIVE_TEXT[state];
    resume.hidden = state !== 'ended';
  };
  const start = () => {
    current?.unsubscribe();
    current = shown && watchSite(client, shown, view, setLive);
  };
  const stop = () => {
    current?.unsubscribe();
    current = undefined;
  };

  resume.addEventListener('click', start);
  // Leaving the page ends the subscription (and its stream) at once; a page restored from the
  // browser's back-forward cache subscribes again.
  window.addEventListener('pagehide', stop);
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) start();
  });
  return {
    show(site) {
      shown = site;
      start();
      panel.scrollIntoView({ block: 'nearest' });
    },
  };
}

// Private: subscribes to the site and draws every push. The returned handle ends the subscription
// without calling it "ended": only an end the page did not ask for (the gateway closed the
// subscription, or the stream failed for good) is shown as one.
function watchSite(client: Client, site: ChosenSite, view: PanelView, setLive: (state: LiveState) => void) {
  showLoading(view, `Connecting to ${site.name}…`);
  setLive('connecting');
  let last: { site: SiteLanesFragment; at: Date } | undefined;
  let stopped = false;
  const subscription = pipe(
    client.subscription(SiteStockDocument, { code: site.code }),
    onEnd(() => {
      if (!stopped) endOf(view, last?.at, setLive);
    }),
    subscribe((result) => {
      if (result.error) return pauseOn(result.error, view, last?.at, setLive);
      if (!result.data) return;
      last = { site: result.data.siteStock, at: new Date() };
      showError(view, undefined);
      showSite(view, last.site, last.at);
      setLive('live');
    }),
  );
  return {
    unsubscribe() {
      stopped = true;
      subscription.unsubscribe();
    },
  };
}

// Private: an error push (or a failed stream): said at once, while the table keeps the last stock.
function pauseOn(error: CombinedError, view: PanelView, at: Date | undefined, setLive: (state: LiveState) => void) {
  showError(view, error);
  setLive('paused');
  if (at !== undefined) view.status.textContent = `Stock as of ${time.format(at)}; it updates again when the gateway can read it.`;
  else view.status.textContent = '';
}

// Private: the subscription is over; what is shown stays, with its time.
function endOf(view: PanelView, at: Date | undefined, setLive: (state: LiveState) => void) {
  setLive('ended');
  view.table.removeAttribute('aria-busy');
  view.status.textContent = at === undefined ? 'Live updates stopped.' : `Live updates stopped; stock as of ${time.format(at)}.`;
}

function showSite(view: PanelView, site: SiteLanesFragment, at: Date) {
  const lanes = site.points.flatMap((point) => point.cargoLanes);
  const items = lanes.reduce((sum, lane) => sum + (lane.stock ?? 0), 0);
  const machines = site.points.length;
  view.status.textContent = machines === 0
    ? `${site.name} has no machines.`
    : `${machines === 1 ? '1 machine' : `${machines} machines`}, ${items} items in stock. Updated ${time.format(at)}.`;
  const caption = `Machines at ${site.name}${site.enabled ? '' : ' (not in service)'}`;
  showRows(view, caption, site.points.flatMap(laneRows));
}

// Private: one row per lane; the machine's name heads its first row and spans the others.
function laneRows(point: SiteLanesFragment['points'][number]): HTMLTableRowElement[] {
  return point.cargoLanes.map((lane, index) => {
    const row = element('tr', undefined);
    row.dataset.point = point.code;
    row.dataset.lane = String(index);
    if (index === 0) {
      const header = element('th', undefined, element('span', 'machine-name', point.name), element('span', 'detail', point.code));
      header.scope = 'row';
      header.rowSpan = point.cargoLanes.length;
      row.append(header);
    }
    const empty = lane.goodsCode === null;
    row.append(
      element('td', 'number', String(index + 1)),
      element('td', empty ? 'tag' : undefined, empty ? 'Empty slot' : (lane.productName ?? lane.goodsCode ?? '')),
      element('td', lane.stock === 0 ? 'number stock out' : 'number stock', lane.stock === null ? '—' : String(lane.stock)),
    );
    return row;
  });
}
