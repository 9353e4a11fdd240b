/**
 * The example page: three panels over the gateway's GraphQL API, on the same origin (/graphql).
 * A site chosen in the city's list is shown, live, in "Machines at a site".
 */
import { createGraphQLClient } from './client';
import { mountSitesPanel } from './sites-panel';
import { mountSiteStockPanel } from './site-stock-panel';
import { mountStockPanel } from './stock-panel';
import './style.css';

const client = createGraphQLClient(new URL('/graphql', window.location.href).href);
const siteStock = mountSiteStockPanel(client);
mountSitesPanel(client, (site) => siteStock.show(site));
mountStockPanel(client);
