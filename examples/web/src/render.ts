/**
 * The few DOM helpers the page needs: find its elements, build rows, and show a panel's
 * status (loading, counts) and errors (the messages of the GraphQL errors, or the network's).
 */
import type { CombinedError } from '@urql/core';

/** The element with this id, checked to be of the expected kind (the HTML and code agree). */
export function byId<T extends HTMLElement>(id: string, kind: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof kind)) throw new Error(`The page has no <${kind.name}> with id "${id}"`);
  return found;
}

/** A new element with a class (optional) and children (text or elements). */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string | undefined,
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  if (className !== undefined) created.className = className;
  created.append(...children);
  return created;
}

/** A panel's status line, error box and result table. */
export interface PanelView {
  status: HTMLElement;
  error: HTMLElement;
  table: HTMLTableElement;
}

/** Shows "loading": the status says what is awaited; the table, if shown, is marked busy. */
export function showLoading(view: PanelView, text: string): void {
  view.status.textContent = text;
  view.table.setAttribute('aria-busy', 'true');
  showError(view, undefined);
}

/** Shows a result: its caption and rows, or hides the table when there are none. */
export function showRows(view: PanelView, caption: string, rows: HTMLTableRowElement[]): void {
  view.table.caption!.textContent = caption;
  view.table.tBodies[0]!.replaceChildren(...rows);
  view.table.hidden = rows.length === 0;
  view.table.removeAttribute('aria-busy');
}

/**
 * Shows the messages of a GraphQL answer's `error`, or a message of the page's own; clears the
 * box when there is neither. The table stays as it was.
 */
export function showError(view: PanelView, error: CombinedError | string | undefined): void {
  view.error.hidden = error === undefined;
  if (error === undefined) return view.error.replaceChildren();
  view.table.removeAttribute('aria-busy');
  if (typeof error === 'string') return view.error.replaceChildren(element('p', undefined, error));
  const items = messagesOf(error).map((message) => element('li', undefined, message));
  view.error.replaceChildren(element('p', undefined, 'The gateway answered with an error:'), element('ul', undefined, ...items));
}

// Private: what the gateway said, without urql's `[GraphQL]` / `[Network]` prefixes.
function messagesOf(error: CombinedError): string[] {
  if (error.networkError) return [`The gateway could not be reached: ${error.networkError.message}`];
  return error.graphQLErrors.map((graphQLError) => graphQLError.message);
}

/**
 * An open / closed / unknown badge for `Site.isOpen`; "Not in service" for a site that is not
 * enabled, whatever its hours say: a shopper must not walk to a machine that will not sell.
 */
export function openBadge({ isOpen, enabled }: { isOpen: boolean | null; enabled: boolean }): HTMLElement {
  if (!enabled) return element('span', 'badge off', 'Not in service');
  if (isOpen === null) return element('span', 'badge unknown', 'Hours unknown');
  return isOpen ? element('span', 'badge open', 'Open now') : element('span', 'badge closed', 'Closed');
}

/** A site's name as a row header, with a "not in service" tag for a site that is not enabled. */
export function siteHeader(site: { name: string; enabled: boolean }, detail?: string): HTMLTableCellElement {
  const header = element('th', undefined, element('span', 'site-name', site.name));
  header.scope = 'row';
  if (!site.enabled) header.append(' ', element('span', 'tag', 'not in service'));
  if (detail !== undefined) header.append(element('span', 'detail', detail));
  return header;
}
