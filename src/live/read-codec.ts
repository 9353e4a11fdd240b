/**
 * A poll's read as its replica publishes it to the others: the site (or every site) as JSON with
 * its fingerprint, or only a failure's code, all a subscriber is ever told of it.
 */
import { isUpstreamError, UPSTREAM_CODES, UpstreamError, type UpstreamErrorCode } from '../upstream/errors.js';
import type { SiteRecord } from '../upstream/records.js';
import type { AllSitesRead, SiteRead } from './polling.js';

/** `read` as text for the other replicas. */
export function encodeRead(read: SiteRead | AllSitesRead): string {
  if ('error' in read) return JSON.stringify({ error: isUpstreamError(read.error) ? read.error.code : 'UPSTREAM_UNAVAILABLE' });
  return JSON.stringify(read);
}

/** A site's read from its text; `undefined` when it is not one. */
export function decodeSiteRead(text: string): SiteRead | undefined {
  const value = parse(text);
  if (value === undefined) return undefined;
  if ('error' in value) return failure(value.error);
  const { site, fingerprint } = value;
  if (typeof fingerprint !== 'string' || typeof site !== 'object') return undefined;
  return { site: site as SiteRecord | null, fingerprint };
}

/** Every site's read from its text; `undefined` when it is not one. */
export function decodeAllSitesRead(text: string): AllSitesRead | undefined {
  const value = parse(text);
  if (value === undefined) return undefined;
  if ('error' in value) return failure(value.error);
  return Array.isArray(value.sites) && value.sites.every((site) => typeof site === 'object' && site !== null)
    ? { sites: value.sites as SiteRecord[] }
    : undefined;
}

// Private: the failure a subscriber is told of, as the replica that read it was.
function failure(code: unknown): { error: UpstreamError } | undefined {
  if (!UPSTREAM_CODES.includes(code as UpstreamErrorCode)) return undefined;
  return { error: new UpstreamError(code as UpstreamErrorCode, 'the replica polling for the fleet could not read the upstream') };
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
