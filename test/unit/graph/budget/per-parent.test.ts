/**
 * A field bound to one call per parent record (graph/bindings.ts `per: 'parent'`) is priced once
 * per parent the lists above it can hold: the page's size, a connection's window, one for a
 * lookup. The schema here gains a `Site.inspections` the gateway does not have, bound as such a
 * field would be (a list by the site's code), to show that its binding alone prices it.
 */
import { parse, type OperationDefinitionNode } from 'graphql';
import { readFileSync } from 'node:fs';
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { BINDINGS, type Binding } from '../../../../src/graph/bindings.js';
import { estimateUpstreamCalls } from '../../../../src/graph/budget/estimate.js';

const schema = createSchema({
  typeDefs: [
    readFileSync(new URL('../../../../schema.graphql', import.meta.url), 'utf8'),
    'type Inspection { rating: Int }\nextend type Site { inspections: [Inspection!]! }',
  ],
});
const bound: Record<string, Binding> = { ...BINDINGS, 'Site.inspections': { per: 'parent', operation: 'site' } };
const cold = { facts: () => ({ cap: undefined, total: undefined }), isCached: () => false };

function estimate(query: string, bindings = bound): number {
  const operation = parse(query).definitions[0] as OperationDefinitionNode;
  return estimateUpstreamCalls(operation, {}, {}, cold, schema, bindings);
}

describe('a field called once per parent', () => {
  it('costs one call per site of a page, besides the page', () => {
    expect(estimate('{ sites(pageSize: 50) { items { inspections { rating } } } }')).toBe(51);
    expect(estimate('{ sites(pageSize: 50) { items { points { code } inspections { rating } } } }')).toBe(51);
  });

  it('costs one call per node of a connection\'s window, and one for a lookup', () => {
    expect(estimate('{ sitesConnection(first: 20) { edges { node { inspections { rating } } } } }')).toBe(21);
    expect(estimate('{ site(code: "S000001") { inspections { rating } } }')).toBe(2);
  });

  it('multiplies through nested lists: each site of each product\'s availability', () => {
    // The index answers both lists (no call); 5 products × 50 lanes, one site each.
    expect(estimate('{ searchProducts(first: 5) { availability { site { inspections { rating } } } } }')).toBe(250);
  });

  it('is priced nothing without its binding: the binding is what prices it', () => {
    expect(estimate('{ sites(pageSize: 50) { items { inspections { rating } } } }', BINDINGS)).toBe(1);
  });
});
