/** `GET /metrics`: the Prometheus text exposition; behind the API keys when set, never rate limited. */
import type { GatewayMetrics } from '../../observability/metrics.js';
import { ROUTES } from '../../admission/routes.js';
import type { Page } from '../page.js';

export const METRICS_PATH = ROUTES.metrics;

export function metricsPage(metrics: GatewayMetrics): Page {
  return async ({ url, request }) => {
    if (url.pathname !== METRICS_PATH || request.method !== 'GET') return undefined;
    const { contentType, body } = await metrics.render();
    return new Response(body, { headers: { 'content-type': contentType } });
  };
}
