/**
 * "Where is a product in stock?": a product (product-search.ts), a location (location.ts), then
 * the machines holding the product in stock, nearest first, with their distance, stock and
 * whether the site is open now.
 *
 * `Product.availability(near:)` answers one entry per cargo lane, and a machine often holds a
 * product in several lanes; they come one after the other (a site's lanes keep their machine and
 * lane order), so the page adds them up into one row per machine.
 *
 * The availability is deferred (`@defer` in operations.graphql): the product's name shows at once,
 * the machines when the gateway has found them.
 */
import type { Client } from '@urql/core';
import { ProductAvailabilityDocument, type ProductStockFragment } from './generated/graphql';
import { mountLocationInput, type Location } from './location';
import { mountProductSearch } from './product-search';
import { byId, element, openBadge, showError, showLoading, showRows, siteHeader, type PanelView } from './render';

/** Machines listed: the nearest ones. */
const MACHINES_SHOWN = 10;
/** Lanes asked for: enough for MACHINES_SHOWN machines, unless the product fills many lanes of each. */
const LANES_ASKED = 50;

type Lane = ProductStockFragment['availability'][number];

/** The lanes of one machine holding the product. */
interface Machine {
  first: Lane;
  lanes: number;
  stock: number;
}

const distance = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function mountStockPanel(client: Client): void {
  const view: PanelView = {
    status: byId('stock-status', HTMLElement),
    error: byId('stock-error', HTMLElement),
    table: byId('availability', HTMLTableElement),
  };
  const form = byId('availability-form', HTMLFormElement);
  const origin = mountLocationInput(() => update(false), (message) => showError(view, message));
  const picker = mountProductSearch(client, view, () => update(false));
  let current: { unsubscribe(): void } | undefined;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    update(true);
  });

  // Runs the query when both a product and a location are given; `report` shows what is missing.
  function update(report: boolean) {
    const near = origin.read(report);
    if (picker.value === '' || near === undefined) {
      if (report && picker.value === '') picker.reportValidity();
      return;
    }
    current?.unsubscribe();
    current = showNearest(client, picker.value, near, view);
  }
}

// Private: the nearest lanes, from the cache at once when there, then fresh (stock moves).
function showNearest(client: Client, goodsCode: string, near: Location, view: PanelView) {
  showLoading(view, 'Looking for the nearest stock…');
  const variables = { goodsCode, near, first: LANES_ASKED };
  return client.query(ProductAvailabilityDocument, variables, { requestPolicy: 'cache-and-network' }).subscribe((result) => {
    showError(view, result.error);
    const product = result.data?.product;
    if (product === undefined) return;
    if (product === null) {
      view.status.textContent = 'There is no such product.';
      return showRows(view, '', []);
    }
    const name = product.productName ?? product.goodsCode;
    if (product.availability === undefined) {
      view.status.textContent = `Looking for the nearest machines with ${name}…`;
      return;
    }
    const machines = machinesOf(product.availability).slice(0, MACHINES_SHOWN);
    view.status.textContent = summaryOf(name, machines.length);
    const from = `${near.lat.toFixed(4)}, ${near.lng.toFixed(4)}`;
    showRows(view, `Nearest stock of ${name} from ${from}`, machines.map(machineRow));
  });
}

function summaryOf(name: string, machines: number): string {
  if (machines === 0) return `${name} is not in stock anywhere.`;
  if (machines === 1) return `One machine has ${name} in stock.`;
  return `The ${machines} nearest machines with ${name} in stock.`;
}

// Private: consecutive lanes of one machine added up. When the answer is as long as asked, its
// last machine may have more lanes past the end, so it is left out rather than shown short.
function machinesOf(lanes: Lane[]): Machine[] {
  const machines: Machine[] = [];
  for (const lane of lanes) {
    const last = machines.at(-1);
    if (last?.first.point.id === lane.point.id) {
      last.lanes += 1;
      last.stock += lane.stock;
    } else machines.push({ first: lane, lanes: 1, stock: lane.stock });
  }
  if (lanes.length === LANES_ASKED && machines.length > 1) machines.pop();
  return machines;
}

function machineRow({ first: { site, point, distanceKm }, lanes, stock }: Machine): HTMLTableRowElement {
  const row = element('tr', undefined, siteHeader(site, site.city?.name));
  row.append(
    element('td', undefined, element('span', 'machine-name', point.name), element('span', 'detail', lanes === 1 ? '1 slot' : `${lanes} slots`)),
    element('td', 'number', String(stock)),
    element('td', 'number distance', distanceKm === null ? '—' : `${distance.format(distanceKm)} km`),
    element('td', undefined, openBadge(site)),
  );
  return row;
}
