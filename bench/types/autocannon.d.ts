/**
 * The part of autocannon 8's programmatic API the bench uses (the package ships no types).
 * Latencies are in ms, throughput in bytes.
 */
declare module 'autocannon' {
  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface RequestTemplate extends AutocannonRequest {
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  export interface Options extends AutocannonRequest {
    /** Several URLs: connection i goes to `url[i % url.length]` for the whole run. */
    url: string | string[];
    connections?: number;
    duration?: number;
    /** Requests to send in all; `duration` is then ignored. */
    amount?: number;
    pipelining?: number;
    timeout?: number;
    requests?: RequestTemplate[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    /** Per-second samples of answered requests; `sent` counts every request started. */
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    '2xx': number;
  }

  export interface Instance extends Promise<Result> {
    stop(): void;
    /** Every answer, as it arrives (response time in ms). */
    on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
