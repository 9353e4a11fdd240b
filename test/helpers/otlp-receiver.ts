/**
 * A real OTLP/HTTP trace receiver: a `node:http` server on port 0 that takes what the gateway's
 * exporter POSTs to `/v1/traces` (JSON, the protocol of `@opentelemetry/exporter-trace-otlp-http`)
 * and decodes it into flat spans.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type AttributeValue = string | number | boolean | AttributeValue[];

/** One span as received, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP's SpanKind). */
  kind: number;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code?: number; message?: string };
  /** `service.name` of its resource. */
  service: string;
  /** When it started and ended, in ns since the epoch (as OTLP sends them). */
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
}

export interface OtlpReceiver {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /** Every request body received, as text (to look for what must never be sent). */
  bodies(): string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) spans.push(...decode(JSON.parse(text)));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    bodies: () => [...bodies],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// Private: OTLP JSON (ExportTraceServiceRequest) to flat spans.
function decode(request: any): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans: any) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope: any) => (scope.spans ?? []).map((span: any): ReceivedSpan => ({
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId ?? '',
      name: span.name,
      kind: span.kind,
      attributes: attributesOf(span.attributes),
      events: (span.events ?? []).map((event: any) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
      status: span.status ?? {},
      service,
      startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
      endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
    })));
  });
}

function attributesOf(list: any[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((attribute: any) => [attribute.key, valueOf(attribute.value)]));
}

function valueOf(value: any): AttributeValue {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(valueOf);
  return JSON.stringify(value);
}
