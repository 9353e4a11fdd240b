/**
 * The upstream's operations (upstream/operations.ts), called and normalised. Knows the
 * upstream's habits (not-found answers, the two plain site lists); knows nothing of caching or
 * GraphQL. Any operation of the table is called the same way: by its name.
 */
import type { Logger } from '../base/logger.js';
import type { UpstreamClient, UpstreamRequestOptions } from './contracts.js';
import { UpstreamError } from './errors.js';
import { isEmptyResult, isRaw, normalisePage, type DefectReporter } from './normalise.js';
import { DETAILS, LISTS, type ChildListOperation, type DetailKind, type DetailRecord, type ListKind, type ListRecord } from './operations.js';
import type { UpstreamPage } from './records.js';

export interface UpstreamApi {
  /** One page of a list; where a list has more than one path, the next is asked where one answers 404. */
  list<K extends ListKind>(kind: K, page: number, pageSize: number, options?: UpstreamRequestOptions): Promise<UpstreamPage<ListRecord<K>>>;
  /** The record, or `null` when the upstream does not know the code. */
  detail<K extends DetailKind>(kind: K, code: string, options?: UpstreamRequestOptions): Promise<DetailRecord<K> | null>;
  /** The records of one parent (none when the upstream does not know the code); broken ones are dropped. */
  children<T>(operation: ChildListOperation<T>, code: string, options?: UpstreamRequestOptions): Promise<T[]>;
}

export function createUpstreamApi(client: UpstreamClient, logger?: Logger): UpstreamApi {
  const report: DefectReporter = (what) => logger?.warn({ defect: what }, 'dropped a broken upstream item');
  // Which of a list's equivalent paths answers; switches when one answers 404.
  const pathOf: Partial<Record<ListKind, number>> = {};

  async function page<K extends ListKind>(kind: K, path: string, page: number, pageSize: number, options?: UpstreamRequestOptions) {
    const result = await client.get(path, { page, pageSize }, options);
    const read = LISTS[kind].read as (raw: Record<string, unknown>, report: DefectReporter) => ListRecord<K> | null;
    const normalised = normalisePage(result, read, path, (page - 1) * pageSize, report);
    if (normalised === null) {
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `The upstream answered ${path} with a malformed list`, { path });
    }
    return normalised;
  }

  async function list<K extends ListKind>(kind: K, p: number, pageSize: number, options?: UpstreamRequestOptions) {
    const { paths } = LISTS[kind];
    const first = pathOf[kind] ?? 0;
    try {
      return await page(kind, paths[first]!, p, pageSize, options);
    } catch (error) {
      if (paths.length < 2 || !(error instanceof UpstreamError && error.status === 404)) throw error;
      const next = (first + 1) % paths.length;
      pathOf[kind] = next;
      logger?.warn({ path: paths[first] }, 'list path answered 404; using the other one');
      return page(kind, paths[next]!, p, pageSize, options);
    }
  }

  async function detail<K extends DetailKind>(kind: K, code: string, options?: UpstreamRequestOptions): Promise<DetailRecord<K> | null> {
    const { paths: [path], param } = DETAILS[kind];
    const read = DETAILS[kind].read as (raw: Record<string, unknown>, report: DefectReporter) => DetailRecord<K> | null;
    let result: unknown;
    try {
      result = await client.get(path, { [param]: code }, options);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    if (isEmptyResult(result)) return null;
    const record = isRaw(result) ? read(result, report) : null;
    if (record === null) {
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `The upstream answered ${path} with a malformed record`, { path });
    }
    return record;
  }

  async function children<T>({ paths: [path], param, read }: ChildListOperation<T>, code: string, options?: UpstreamRequestOptions): Promise<T[]> {
    let result: unknown;
    try {
      result = await client.get(path, { [param]: code }, options);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    if (isEmptyResult(result)) return [];
    const items = Array.isArray(result) ? result : isRaw(result) && Array.isArray(result.items) ? (result.items as unknown[]) : null;
    if (items === null) throw new UpstreamError('UPSTREAM_UNAVAILABLE', `The upstream answered ${path} with a malformed list`, { path });
    return items.flatMap((item) => {
      const record = isRaw(item) ? read(item, report) : null;
      if (record === null) report(`${path} item without a usable code`);
      return record === null ? [] : [record];
    });
  }

  return { list, detail, children };
}

// Private: the upstream's way of saying "no such record" is not documented; accept an error
// envelope with code 404 or a message that says so.
const NOT_FOUND_MSG = /not\s*(be\s*)?found|not\s*exist|no\s*such|no\s*data|不存在|未找到/i;

function isNotFound(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    error.code === 'UPSTREAM_ERROR' &&
    (error.upstreamCode === 404 || NOT_FOUND_MSG.test(error.upstreamMsg ?? ''))
  );
}
