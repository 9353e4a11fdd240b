/**
 * SIGHUP as operators send it: the gateway run as its own process (src/main.ts, demo mode) reads
 * its persisted documents file again on the signal, and keeps the old list, alive, when the new
 * file is bad. test/e2e/protection/persisted-documents.test.ts tests the reload itself in detail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { until } from '../../helpers/http.js';
import { addressOf, freshEnv } from '../../helpers/process.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'vending-graph-sighup-'));
const file = join(dir, 'documents.json');
const CITIES = '{ cities(pageSize: 1) { total } }';
const PRODUCTS = '{ products(pageSize: 1) { total } }';

async function codeOrData(graphql: string, documentId: string): Promise<unknown> {
  const response = await fetch(graphql, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documentId }) });
  const body = (await response.json()) as { data?: unknown; errors?: Array<{ extensions: { code: string } }> };
  return body.errors?.[0]?.extensions.code ?? 'data';
}

describe('SIGHUP', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes a running gateway read its persisted documents again, and a bad file changes nothing', async () => {
    writeFileSync(file, JSON.stringify({ [sha256Hex(CITIES)]: CITIES }));
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: freshEnv({ PERSISTED_OPERATIONS_FILE: file, DEMO_LATENCY_MS: '0' }), stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += String(chunk)));
    const graphql = await addressOf(child);
    expect(await codeOrData(graphql, sha256Hex(CITIES))).toBe('data');
    expect(await codeOrData(graphql, sha256Hex(PRODUCTS))).toBe('PERSISTED_QUERY_NOT_IN_LIST');

    writeFileSync(file, JSON.stringify({ [sha256Hex(PRODUCTS)]: PRODUCTS }));
    child.kill('SIGHUP');
    await until(() => output.includes('persisted documents reloaded'));
    expect(await codeOrData(graphql, sha256Hex(PRODUCTS))).toBe('data');
    expect(await codeOrData(graphql, sha256Hex(CITIES))).toBe('PERSISTED_QUERY_NOT_IN_LIST');

    writeFileSync(file, '{ not json');
    child.kill('SIGHUP');
    await until(() => output.includes('persisted documents not reloaded'));
    expect(await codeOrData(graphql, sha256Hex(PRODUCTS))).toBe('data');
    expect(child.exitCode).toBeNull();
  }, 60_000);
});
