/** Every path the gateway serves, declared once, with which need no API key or rate limit. */

export const ROUTES = {
  /** Where things are: links to the others. */
  root: '/',
  /** GraphQL over HTTP and over WebSocket, and the GraphiQL page (a GET asking for HTML). */
  graphql: '/graphql',
  /** GraphiQL's hashed assets: `<prefix><hash>.js`, `.css` and `.ico`. A prefix. */
  graphiqlAssets: '/graphql/assets/',
  /** The schema's SDL (when introspection is on). */
  schema: '/schema.graphql',
  /** Liveness: answers at once, checks nothing. */
  health: '/healthz',
  /** Readiness: 503 once the gateway is stopping. */
  readiness: '/readyz',
  /** The Prometheus metrics. */
  metrics: '/metrics',
  /** The purge by tag (`ADMIN_API_KEYS`). */
  purge: '/admin/purge',
  /** The example page in demo mode: the path itself and every path under it. */
  demo: '/demo',
} as const;

const EXACT: ReadonlySet<string> = new Set([ROUTES.root, ROUTES.graphql, ROUTES.schema, ROUTES.health, ROUTES.readiness, ROUTES.metrics, ROUTES.purge, ROUTES.demo]);

/** Whether the gateway serves anything at `pathname`. */
export function isRoute(pathname: string): boolean {
  return EXACT.has(pathname) || pathname.startsWith(ROUTES.graphiqlAssets) || pathname.startsWith(`${ROUTES.demo}/`);
}

/** Paths answered without an API key: probes carry no credentials. */
export const OPEN_PATHS: ReadonlySet<string> = new Set([ROUTES.health, ROUTES.readiness]);

/** Paths never rate limited: probes and metrics scrapes. */
export const UNLIMITED_PATHS: ReadonlySet<string> = new Set([ROUTES.health, ROUTES.readiness, ROUTES.metrics]);
