/**
 * The tags of an answer: the upstream data it was built from (`site:S000001`, `sites`), as a CDN
 * purges by them and `POST /admin/purge` takes them; bounded by naming entities by their list.
 */

/** The longest tag list sent, in bytes, below what CDNs accept. */
export const TAGS_MAX_BYTES = 2048;

/** The list tag that stands for the entities of a kind, past the cap. */
const LIST_OF: Readonly<Record<string, string>> = { site: 'sites', product: 'products', city: 'cities' };

/** A tag as the purge endpoint accepts it: a kind (lower case), and a code when it names one entity. */
export const TAG_PATTERN = /^[a-z][a-zA-Z]{0,31}(?::[A-Za-z0-9._-]{1,64})?$/;

/** Collects an answer's tags as the request resolves what it shows. */
export interface Tags {
  /** Names an entity (`product`, `G00001`), or a list (`products`). */
  add(kind: string, code?: string): void;
  /** The tags to send and store: sorted, at most `TAGS_MAX_BYTES` joined; empty when none. */
  list(): readonly string[];
}

/** Codes are kept as they come and named only when the list is asked for, which most answers never are. */
export function createTags(): Tags {
  const lists = new Set<string>();
  const codes = new Map<string, Set<string>>();
  let listed: readonly string[] | undefined;
  return {
    add(kind, code) {
      const known = code === undefined ? lists : (codes.get(kind) ?? codes.set(kind, new Set()).get(kind)!);
      const value = code ?? kind;
      if (known.has(value)) return;
      known.add(value);
      listed = undefined;
    },
    list: () => (listed ??= bounded(named(lists, codes))),
  };
}

// Private: every tag by name; a code no header may carry is named by its list.
function named(lists: Set<string>, codes: Map<string, Set<string>>): string[] {
  const tags = new Set(lists);
  for (const [kind, ofKind] of codes) {
    for (const code of ofKind) {
      const tag = `${kind}:${code}`;
      const safe = TAG_PATTERN.test(tag) ? tag : LIST_OF[kind];
      if (safe !== undefined) tags.add(safe);
    }
  }
  return [...tags];
}

/** The answer tags a purge of `tags` drops: each, and for an entity its list's too. */
export function answerTagsPurged(tags: readonly string[]): string[] {
  const all = new Set(tags);
  for (const tag of tags) {
    const list = LIST_OF[tag.slice(0, Math.max(0, tag.indexOf(':')))];
    if (list !== undefined) all.add(list);
  }
  return [...all];
}

/** The two headers naming an answer's tags. */
export interface TagHeaders {
  'surrogate-key': string;
  'cache-tag': string;
}

// Private: the headers of each list, made once: a stored answer's list is sent with every hit.
const headersOf = new WeakMap<readonly string[], TagHeaders>();

/** `Surrogate-Key` and `Cache-Tag` for `tags`, or undefined when there are none. */
export function tagHeaders(tags: readonly string[] | undefined): TagHeaders | undefined {
  if (tags === undefined || tags.length === 0) return undefined;
  let headers = headersOf.get(tags);
  if (headers === undefined) headersOf.set(tags, (headers = { 'surrogate-key': tags.join(' '), 'cache-tag': tags.join(',') }));
  return headers;
}

// Private: entities collapse into their list, the most numerous kind first, until the list fits.
function bounded(tags: string[]): readonly string[] {
  if (bytes(tags) <= TAGS_MAX_BYTES) return tags.sort();
  let all = new Set(tags);
  while (bytes(all) > TAGS_MAX_BYTES) {
    const kind = mostNumerous(all);
    if (kind === undefined) break;
    all = new Set([...all].map((tag) => (tag.startsWith(`${kind}:`) ? LIST_OF[kind]! : tag)));
  }
  return [...all].sort();
}

function bytes(tags: Iterable<string>): number {
  let total = -1; // no space before the first
  for (const tag of tags) total += tag.length + 1;
  return Math.max(0, total);
}

// Private: the collapsible kind with the most entity tags, if any is left.
function mostNumerous(tags: Set<string>): string | undefined {
  const counts = new Map<string, number>();
  for (const tag of tags) {
    const kind = tag.slice(0, Math.max(0, tag.indexOf(':')));
    if (LIST_OF[kind] !== undefined) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}
