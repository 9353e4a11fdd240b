/**
 * GraphiQL's second visit in a real Chromium: the gateway, which counts what it is asked, sees
 * only the shell, and the hashed assets come from the browser's cache; the page works every time.
 * The shell is revalidated (304) while the browser keeps it: the page's own queries are POSTs to
 * the same URL, and a POST drops the browser's copy of what the URL answered to a GET (RFC 9111
 * §4.4), so a visit after running queries downloads the shell again (1.5 KB with headers), never an asset.
 */
import type { CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type BrowserSession } from '../../helpers/browser.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const BROWSER_TIMEOUT_MS = 90_000;

type Page = BrowserSession['page'];

/** The page's script and style sheet. The favicon is left out: Chromium asks for it at a time of its own. */
const ASSET = /^\/graphql\/assets\/[0-9a-f]{16}\.(js|css)$/;

/** A GET of the shell or of its script or style sheet (not the starting page, nor any favicon). */
function graphiql(line: string): boolean {
  return line.startsWith('GET /graphql ') || ASSET.test(line.split(' ')[1]!);
}

/** What Chromium's network layer said of one response (DevTools protocol). */
interface Seen {
  path: string;
  status: number;
  /** Served from the browser's cache, without asking the gateway. */
  cached: boolean;
  /** Bytes received over the network, headers included. */
  wireBytes: number;
  encoding: string | undefined;
}

describe('GraphiQL visited twice', () => {
  let h: Harness;
  let browser: BrowserSession;
  /** Every GET the gateway answered, as method, path and status (the page's own queries are POSTs). */
  const asked: string[] = [];
  beforeAll(async () => {
    h = await startGateway();
    h.watch(({ method, path, status }) => {
      if (method === 'GET') asked.push(`GET ${path} ${status}`);
    });
    browser = await launchBrowser();
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('opened again in a new tab: only the shell is asked for, the assets come from the browser cache', async () => {
    const { page } = browser;
    const errors = watchErrors(page);
    const seen = await watchNetwork(await page.context().newCDPSession(page));
    await page.goto(`${h.url}/graphql`);
    await opened(page);
    expect(asked.splice(0).filter(graphiql).map((line) => line.replace(/[0-9a-f]{16}/, '<hash>')).sort()).toEqual(
      ['GET /graphql 200', 'GET /graphql/assets/<hash>.css 200', 'GET /graphql/assets/<hash>.js 200'],
    );
    const first = seen.filter((response) => response.path.startsWith('/graphql'));
    process.stdout.write(`GraphiQL's first visit in Chromium: ${JSON.stringify(first)}\n`);
    expect(first.filter((response) => ASSET.test(response.path)).map((response) => response.encoding)).toEqual(['br', 'br']);

    const tab = await page.context().newPage();
    const tabErrors = watchErrors(tab);
    const again = await watchNetwork(await tab.context().newCDPSession(tab));
    await tab.goto(`${h.url}/graphql`);
    await opened(tab);
    expect(asked.splice(0).filter(graphiql)).toEqual(['GET /graphql 200']);
    const shell = again.find((response) => response.path === '/graphql')!;
    expect([shell.encoding, shell.wireBytes < 4096]).toEqual(['br', true]);
    process.stdout.write(`GraphiQL's second visit in Chromium: ${JSON.stringify(again.filter((response) => response.path.startsWith('/graphql')))}\n`);
    const assets = again.filter((response) => ASSET.test(response.path));
    expect(assets.map((response) => [response.cached, response.wireBytes])).toEqual([[true, 0], [true, 0]]);
    expect(browser.externalRequests()).toEqual([]);
    expect([...errors, ...tabErrors]).toEqual([]);
    await tab.close();
  }, BROWSER_TIMEOUT_MS);

  it("revalidates its copy of the shell with the ETag (304) until a POST to /graphql drops it (RFC 9111 §4.4)", async () => {
    const { page } = browser;
    asked.splice(0);
    const fetchShell = () => page.evaluate(async () => (await fetch('/graphql', { headers: { accept: 'text/html' } })).text());
    const post = () => page.evaluate(async () => (await fetch('/graphql', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }),
    })).text());
    await fetchShell();
    await fetchShell();
    await post();
    await fetchShell();
    await fetchShell();
    expect(asked.filter(graphiql)).toEqual(['GET /graphql 200', 'GET /graphql 304', 'GET /graphql 200', 'GET /graphql 304']);
  }, BROWSER_TIMEOUT_MS);
});

// Private: waits until GraphiQL has drawn its editor with the first example.
async function opened(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Execute query/ }).waitFor({ timeout: 30_000 });
  // Monaco draws spaces as no-break spaces.
  await expect.poll(async () => (await page.locator('.graphiql-query-editor').innerText()).replaceAll('\u00a0', ' ')).toContain('query ');
}

// Private: the page's uncaught errors and console errors (a content security policy violation is one).
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

// Private: the HTTP responses Chromium's network layer reports, cached or not.
async function watchNetwork(cdp: CDPSession): Promise<Seen[]> {
  const seen: Seen[] = [];
  const byId = new Map<string, Seen>();
  const fromMemory = new Set<string>();
  await cdp.send('Network.enable');
  cdp.on('Network.requestServedFromCache', ({ requestId }) => fromMemory.add(requestId));
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    if (!response.url.startsWith('http')) return;
    const entry: Seen = {
      path: new URL(response.url).pathname, status: response.status, cached: response.fromDiskCache === true || fromMemory.has(requestId),
      wireBytes: 0, encoding: response.headers['content-encoding'],
    };
    byId.set(requestId, entry);
    seen.push(entry);
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const entry = byId.get(requestId);
    if (entry !== undefined) entry.wireBytes = encodedDataLength;
  });
  return seen;
}
