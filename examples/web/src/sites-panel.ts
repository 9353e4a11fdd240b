/**
 * "Sites in a city": a city picker (`cities`), then the city's sites (`City.sites`) with their
 * hours and whether each is open now (`Site.isOpen`). Each site's "Machines" button hands it to
 * `onChoose` (main.ts: the live "Machines at a site" panel).
 */
import type { Client } from '@urql/core';
import { CitiesDocument, CitySitesDocument, type CitySitesQuery } from './generated/graphql';
import { byId, element, openBadge, showError, showLoading, showRows, siteHeader, type PanelView } from './render';
import type { ChosenSite } from './site-stock-panel';

type CitySite = NonNullable<CitySitesQuery['city']>['sites']['items'][number];

export function mountSitesPanel(client: Client, onChoose: (site: ChosenSite) => void): void {
  const picker = byId('city', HTMLSelectElement);
  const view: PanelView = {
    status: byId('sites-status', HTMLElement),
    error: byId('sites-error', HTMLElement),
    table: byId('sites', HTMLTableElement),
  };
  let current: { unsubscribe(): void } | undefined;

  void loadCities(client, picker, view);
  picker.addEventListener('change', () => {
    current?.unsubscribe();
    current = undefined;
    if (picker.value === '') return showRows(view, '', []);
    current = showSitesOf(client, picker.value, view, onChoose);
  });
}

// Private: fills the picker with every city (one page of 100 is all the platform has).
async function loadCities(client: Client, picker: HTMLSelectElement, view: PanelView): Promise<void> {
  showLoading(view, 'Loading cities…');
  const { data, error } = await client.query(CitiesDocument, {}).toPromise();
  view.status.textContent = '';
  if (error) showError(view, error);
  if (!data) {
    picker.replaceChildren(new Option('Cities are not available', ''));
    return;
  }
  const options = data.cities.items.map((city) => new Option(city.name, city.code));
  picker.replaceChildren(new Option('Choose a city…', ''), ...options);
  picker.disabled = false;
}

// Private: the city's sites, from the cache at once when they are there, then fresh from the
// gateway (opening hours pass; `isOpen` is as of the answer).
function showSitesOf(client: Client, code: string, view: PanelView, onChoose: (site: ChosenSite) => void) {
  showLoading(view, 'Loading sites…');
  return client.query(CitySitesDocument, { code }, { requestPolicy: 'cache-and-network' }).subscribe((result) => {
    showError(view, result.error);
    const city = result.data?.city;
    if (city === undefined) return;
    if (city === null) {
      view.status.textContent = 'There is no such city.';
      return showRows(view, '', []);
    }
    const { items, total } = city.sites;
    const shown = items.length < total ? `${items.length} of ${total}` : `${total}`;
    view.status.textContent = total === 0 ? `No sites in ${city.name}.` : `${shown} ${total === 1 ? 'site' : 'sites'} in ${city.name}.`;
    showRows(view, `Sites in ${city.name}`, items.map((site) => siteRow(site, onChoose)));
  });
}

function siteRow(site: CitySite, onChoose: (site: ChosenSite) => void): HTMLTableRowElement {
  const row = element('tr', undefined, siteHeader(site));
  const machines = element('button', 'secondary', 'Machines');
  machines.type = 'button';
  machines.setAttribute('aria-label', `Machines at ${site.name}`);
  machines.addEventListener('click', () => onChoose({ code: site.code, name: site.name }));
  row.append(
    element('td', undefined, site.address ?? '—'),
    element('td', 'hours', hoursOf(site.openTime, site.closeTime)),
    element('td', undefined, openBadge(site)),
    element('td', undefined, machines),
  );
  return row;
}

// Private: `09:00–22:00` from `09:00:00` and `22:00:00`; a dash when either is unknown.
function hoursOf(openTime: string | null, closeTime: string | null): string {
  if (openTime === null || closeTime === null) return '—';
  return `${openTime.slice(0, 5)}–${closeTime.slice(0, 5)}`;
}
