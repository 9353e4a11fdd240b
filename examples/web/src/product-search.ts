/**
 * The product picker: the first products at first, then those whose name contains the search
 * text (`searchProducts`). The chosen product stays chosen while it is among the matches.
 */
import type { Client } from '@urql/core';
import { SearchProductsDocument } from './generated/graphql';
import { byId, type PanelView, showError } from './render';

/** Products listed at most: the gateway's largest page. */
const MATCHES_SHOWN = 100;

/** Wires the search form to the product picker; `onPick` runs when the chosen product changes. */
export function mountProductSearch(client: Client, view: PanelView, onPick: () => void): HTMLSelectElement {
  const form = byId('search-form', HTMLFormElement);
  const input = byId('search', HTMLInputElement);
  const picker = byId('product', HTMLSelectElement);
  let latest = 0;

  const search = async () => {
    const asked = ++latest;
    const text = input.value.trim();
    view.status.textContent = text === '' ? 'Loading products…' : `Searching for “${text}”…`;
    const { data, error } = await client.query(SearchProductsDocument, { text: text || null, first: MATCHES_SHOWN }).toPromise();
    if (asked !== latest) return; // a later search has started: its answer wins
    showError(view, error);
    if (!data) return void (view.status.textContent = '');
    const before = picker.value;
    const options = data.searchProducts.map((product) =>
      new Option(`${product.productName ?? product.goodsCode} · ${product.goodsCode}`, product.goodsCode));
    const prompt = options.length === 0 ? 'No product matches' : 'Choose a product…';
    picker.replaceChildren(new Option(prompt, ''), ...options);
    picker.disabled = options.length === 0;
    picker.value = options.some((option) => option.value === before) ? before : '';
    view.status.textContent = text === '' ? '' : `${options.length} products match “${text}”.`;
    if (picker.value !== before) onPick();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void search();
  });
  picker.addEventListener('change', onPick);
  void search();
  return picker;
}
