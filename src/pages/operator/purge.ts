/**
 * `POST /admin/purge` (docs/http-caching.md, "Purging"): `{"tags": [...]}`, answered `{"purged": n}` once done
 * here and in Redis. Off without admin keys; only an admin key will do, presented as a client key
 * is. Runs before the client-key check: an operator's request carries none.
 */
import { ERRORS } from '../../base/errors.js';
import type { Purger } from '../../response-cache/purge.js';
import { createKeyCheck } from '../../admission/api-key.js';
import { isRefusal, refusal, type Refusal } from '../../admission/refusal.js';
import { TAG_PATTERN } from '../../request/tags.js';
import { ROUTES } from '../../admission/routes.js';
import { refusalResponse } from '../../admission/refusal-writer.js';
import { FETCH, type Page } from '../page.js';

export const PURGE_PATH = ROUTES.purge;
/** Tags one purge may name. */
export const MAX_PURGE_TAGS = 100;

const BAD_BODY = `The body must be JSON {"tags": [...]}: 1 to ${MAX_PURGE_TAGS} tags such as "site:S000001" or "sites"`;

export function purgePage(purger: Purger, adminKeys: readonly string[]): Page {
  // The client keys' check, over the admin keys (with none, the endpoint is off before it asks).
  const checkAdmin = createKeyCheck(adminKeys);
  return async ({ request, url, record }) => {
    if (url.pathname !== PURGE_PATH) return undefined;
    const refuse = (answer: Refusal) => {
      record.errorCodes.add(answer.code);
      return refusalResponse(FETCH, answer);
    };
    if (adminKeys.length === 0) return refuse(refusal('NOT_FOUND'));
    const checked = checkAdmin(request.headers);
    if (isRefusal(checked)) {
      record.rejectedAs = 'unauthenticated';
      return refuse(checked);
    }
    const admin = checked.client!;
    record.client = admin;
    if (request.method !== 'POST') return refuse(refusal('BAD_REQUEST', `Purge with a POST: ${BAD_BODY}`));
    const tags = tagsOf(await request.text().catch(() => ''));
    if (tags === undefined) return refuse(refusal('BAD_REQUEST', BAD_BODY));
    const { purged, complete } = await purger.purge(tags, admin);
    // Said, not answered 200: an operator's script must know to purge again.
    if (!complete) return refuse(refusal('PURGE_INCOMPLETE', `${ERRORS.PURGE_INCOMPLETE.message} (${purged} copies dropped)`));
    return Response.json({ purged }, { headers: { 'cache-control': 'no-store' } });
  };
}

// Private: the tags of a body, each once; undefined when it is not a list of 1 to MAX_PURGE_TAGS tags.
function tagsOf(body: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const tags = (parsed as { tags?: unknown } | null)?.tags;
  if (!Array.isArray(tags) || tags.length === 0 || tags.length > MAX_PURGE_TAGS) return undefined;
  if (!tags.every((tag) => typeof tag === 'string' && TAG_PATTERN.test(tag))) return undefined;
  return [...new Set(tags as string[])];
}
