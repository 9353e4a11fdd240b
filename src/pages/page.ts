/**
 * A page: what the gateway answers at one of its paths but GraphQL's (the explorer's and the
 * operator's), as a Fetch `Response`; `undefined` when the request is not the page's.
 */
import type { GatewayRequest } from '../request/request.js';

export interface PageRequest {
  request: Request;
  url: URL;
  /** The request object its door made. */
  record: GatewayRequest;
}

export type Page = (asked: PageRequest) => Response | undefined | Promise<Response | undefined>;

/** The Fetch API pages answer with: the runtime's own. */
export const FETCH = { Response };
