/**
 * A mock of the vending-machine platform: seeded data, a server faithful to the upstream
 * description, and controls for tests. It uses only `node:` built-ins and shares no code with the
 * gateway, so a misreading of the description cannot hide on both sides of the wire.
 */
export { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from './server.js';
export {
  generateCatalog, productPicOf,
  type Catalog, type CatalogOptions, type MockCity, type MockLane, type MockPoint, type MockProduct, type MockSite,
} from './data.js';
export type { MutateStockOptions, StockChange } from './stock.js';
export type { SalesOptions, Scheduler } from './sales.js';
export { createBehaviour, type Behaviour } from './behaviour.js';
export type { Fault, FaultOptions, RawAnswer } from './faults.js';
export type { CallLogEntry } from './counters.js';
