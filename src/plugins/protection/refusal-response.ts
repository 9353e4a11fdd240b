/**
 * A refusal of the admission (edge/admission/refusal.ts) as yoga's `endResponse` answers it,
 * before yoga has read the request: the body every refusal has (plugins/serving/error-response.ts).
 */
import type { FetchAPI } from 'graphql-yoga';
import type { Refusal } from '../../edge/admission/refusal.js';
import { errorResponse } from '../serving/error-response.js';

export function refusalResponse(fetchAPI: FetchAPI, { status, message, code, headers }: Refusal): Response {
  return errorResponse(fetchAPI, status, { message, code }, headers);
}
