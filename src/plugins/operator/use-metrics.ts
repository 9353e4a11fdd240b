/** `GET /metrics`: the Prometheus text exposition; behind the API keys when set, never rate limited. */
import type { Plugin } from 'graphql-yoga';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { ROUTES } from '../../admission/routes.js';

export const METRICS_PATH = ROUTES.metrics;

export function useMetrics(metrics: GatewayMetrics): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== METRICS_PATH || request.method !== 'GET') return;
      const { contentType, body } = await metrics.render();
      endResponse(new fetchAPI.Response(body, { headers: { 'content-type': contentType } }));
    },
  };
}
