import { PassThrough } from 'node:stream';
import type { YogaInitialContext } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/base/clock.js';
import { createLogger } from '../../../src/base/logger.js';
import type { Sources } from '../../../src/data/sources.js';
import { createContextFactory, type ContextSettings } from '../../../src/graph/context.js';
import { createRequest, type GatewayRequest } from '../../../src/request/request.js';

const SETTINGS = { maxPageSize: 100, requestTimeoutMs: 60_000, maxUpstreamCallsPerOperation: 100, index: undefined, clock: systemClock } as unknown as ContextSettings;
const INITIAL = { request: new Request('http://localhost/graphql') } as YogaInitialContext;

// Private: a request that arrived `agoMs` before now (its arrival is all the context reads of it here).
function arrived(agoMs: number): GatewayRequest {
  const made = createRequest('r-1', createLogger('silent', new PassThrough()), systemClock.monotonic());
  return { ...made, startedAt: made.startedAt - agoMs };
}

describe('the GraphQL context', () => {
  it('counts the deadline of a request\'s operations from the arrival of the request object its door hands on, and a renewed scope\'s from its renewal', () => {
    const context = createContextFactory({} as Sources, SETTINGS);
    // Arrived 120 s ago with a 60 s deadline: its operations start with no time left, however fast this runs.
    const made = context({ ...INITIAL, gatewayRequest: arrived(120_000) });
    expect(made.scope.signal.aborted).toBe(true);
    expect((made.scope.signal.reason as { extensions?: { code?: unknown } }).extensions?.code).toBe('REQUEST_TIMEOUT');
    // A subscription's next event gets a deadline of its own.
    made.renew();
    expect(made.scope.signal.aborted).toBe(false);
    made.scope.dispose();
  });
});
