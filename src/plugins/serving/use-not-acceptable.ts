/**
 * A request whose `Accept` no encoder meets gets yoga's 406 with no body; this gives it the
 * registry's `NOT_ACCEPTABLE`, saying which media types the answer can be sent in, and, for a
 * browser asking for a page while GraphiQL is off, that it is off.
 */
import type { Plugin } from 'graphql-yoga';
import { refusal } from '../../admission/refusal.js';
import { refusalResponse } from '../../admission/refusal-writer.js';

export function useNotAcceptable({ graphiql }: { graphiql: boolean }): Plugin {
  return {
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (response.status !== 406 || response.headers.has('content-type')) return;
      const offered = [...new Set((response.headers.get('accept') ?? '').split(',').map((type) => type.split(';', 1)[0]!.trim()).filter(Boolean))];
      const page = !graphiql && request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
      const types = offered.join(', ');
      const message = page
        ? `No explorer page is served here (it is off): send GraphQL asking for ${types}`
        : `This answer can be sent as ${types} only: send one of them in Accept`;
      setResponse(refusalResponse(fetchAPI, refusal('NOT_ACCEPTABLE', message, { accept: types })));
    },
  };
}
