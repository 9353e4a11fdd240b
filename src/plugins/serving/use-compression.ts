/**
 * Compressed answers on yoga's path, as encoding/compress.ts decides for every door. Runs
 * after the response cache, which must store the answer as made, and after HTTP caching, whose
 * `Vary` it extends; a stored answer served is encoded by the response cache already.
 */
import type { Plugin } from 'graphql-yoga';
import { codingHeaders, type Compression } from '../../encoding/compress.js';
import { requestIn } from '../../request/request.js';
import { storedAnswerOf } from '../../request/stored.js';

export function useCompression(compression: Compression): Plugin {
  if (!compression.on) return {};
  return {
    async onResponse({ request, response, setResponse, fetchAPI, serverContext }) {
      const contentType = response.headers.get('content-type');
      const gatewayRequest = requestIn(serverContext);
      if (response.body === null || response.headers.has('content-encoding') || gatewayRequest?.served !== undefined) return;
      if (!contentType?.toLowerCase().includes('json')) return;
      // Known small (yoga states the length of what it serialised): not read, not rebuilt.
      const length = Number(response.headers.get('content-length') ?? NaN);
      if (length < compression.minBytes) return;
      // An answer just stored was read once already: its bytes are the entry's.
      const stored = gatewayRequest && storedAnswerOf(gatewayRequest);
      const body = stored?.body ?? new Uint8Array(await response.arrayBuffer());
      const sent = compression.answer(request.headers.get('accept-encoding'), contentType, body, stored);
      const headers = new fetchAPI.Headers(response.headers);
      headers.delete('content-length');
      for (const [name, value] of Object.entries(codingHeaders(sent, headers.get('vary')))) headers.set(name, value);
      setResponse(new fetchAPI.Response(sent.body as Uint8Array<ArrayBuffer>, { status: response.status, statusText: response.statusText, headers }));
    },
  };
}
