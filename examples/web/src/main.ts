/**
 * The example page: two panels over the gateway's GraphQL API, on the same origin (/graphql).
 */
import { createGraphQLClient } from './client';
import { mountSitesPanel } from './sites-panel';
import { mountStockPanel } from './stock-panel';
import './style.css';

const client = createGraphQLClient(new URL('/graphql', window.location.href).href);
mountSitesPanel(client);
mountStockPanel(client);
