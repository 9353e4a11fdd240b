/**
 * A headless Chromium for tests of what a browser sees: the system's own build (Debian's
 * `chromium`, or `CHROMIUM_PATH`), driven by playwright-core; nothing is ever downloaded.
 *
 *   const browser = await launchBrowser();
 *   await browser.page.goto(`${h.url}/graphql`);
 *   expect(browser.externalRequests()).toEqual([]);
 *   await browser.screenshot('graphiql'); // test/artifacts/graphiql.png
 *   await browser.close();
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';

export interface BrowserSession {
  page: Page;
  /** Every URL the page requested, in order. */
  requests: string[];
  /** Requested URLs whose host is not localhost/127.0.0.1/[::1] (data: and blob: are local). */
  externalRequests(): string[];
  /** Saves a full-page screenshot to test/artifacts/<name>.png (dir created) and returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

// The machine may have no network at all: without these, Chromium's own background calls
// (component updates, sync, QUIC probes …) stall on refused connections.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const LOCAL_PROTOCOLS = new Set(['data:', 'blob:']);

/** Launches Chromium (a fresh temporary profile each time) with one page open on nothing. */
export async function launchBrowser(): Promise<BrowserSession> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ARGS });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  return {
    page,
    requests,
    externalRequests: () => requests.filter((url) => !isLocal(url)),
    async screenshot(name) {
      await mkdir(ARTIFACTS, { recursive: true });
      const path = `${ARTIFACTS}${name}.png`;
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    close: () => browser.close(),
  };
}

function isLocal(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return LOCAL_PROTOCOLS.has(protocol) || LOCAL_HOSTS.has(hostname);
}
