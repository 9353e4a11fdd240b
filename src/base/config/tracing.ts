/** The standard OpenTelemetry variables; tracing is off unless an OTLP endpoint is set. */
import { present, type Env, type Reader } from './readers.js';

/** The specification's samplers (`OTEL_TRACES_SAMPLER`). */
export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

const SAMPLERS: readonly SamplerName[] = [
  'always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio',
];

export interface TracingConfig {
  /** OTLP/HTTP endpoint: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces`. */
  endpoint: string;
  /** `OTEL_SERVICE_NAME`: the `service.name` of every span. Default `vending-graph`. */
  serviceName: string;
  /** `OTEL_TRACES_SAMPLER`. Default `parentbased_always_on` (the specification's). */
  sampler: SamplerName;
  /** `OTEL_TRACES_SAMPLER_ARG`: the share of traces kept by the ratio samplers, 0–1. Default 1. */
  samplerRatio: number;
  /** `OTEL_TRUST_CLIENT_TRACE`: a client's `traceparent` parents the spans; else only a link. Default false. */
  trustClientTrace: boolean;
}

/** The tracing settings, or `undefined` (off); every variable is checked either way. */
export function readTracing(env: Env, read: Reader, problems: string[]): TracingConfig | undefined {
  const disabled = read.bool('OTEL_SDK_DISABLED', false);
  const tracesEndpoint = read.url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = read.url('OTEL_EXPORTER_OTLP_ENDPOINT');
  const serviceName = read.string('OTEL_SERVICE_NAME', 'vending-graph');
  const sampler = read.oneOf<SamplerName>('OTEL_TRACES_SAMPLER', 'parentbased_always_on', SAMPLERS);
  const samplerRatio = readRatio(env, problems);
  const trustClientTrace = read.bool('OTEL_TRUST_CLIENT_TRACE', false);
  const endpoint = tracesEndpoint ?? (baseEndpoint === undefined ? undefined : `${baseEndpoint}/v1/traces`);
  if (disabled || endpoint === undefined) return undefined;
  return { endpoint, serviceName, sampler, samplerRatio, trustClientTrace };
}

// Private: a number from 0 to 1; the value is short and no secret, so it is echoed (its prefix).
function readRatio(env: Env, problems: string[]): number {
  const raw = env.OTEL_TRACES_SAMPLER_ARG;
  if (!present(raw)) return 1;
  const value = Number(raw.trim());
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    problems.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, but got: ${JSON.stringify(raw.slice(0, 32))}`);
    return 1;
  }
  return value;
}
