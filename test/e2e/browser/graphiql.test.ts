/**
 * GraphiQL as a user meets it: a real (headless) Chromium on `/graphql`, with no network but
 * the gateway's.
 */
import { getOperationAST, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_QUERIES } from '../../../src/pages/explorer/example-query.js';
import { launchBrowser, type BrowserSession } from '../../helpers/browser.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const BROWSER_TIMEOUT_MS = 60_000;

describe('GraphiQL in a browser', () => {
  let h: Harness;
  let browser: BrowserSession;
  beforeAll(async () => {
    h = await startGateway();
    browser = await launchBrowser();
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('opens on the example tabs, runs the first one against the gateway, and loads nothing from another host', async () => {
    const { page } = browser;
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${h.url}/graphql`);
    const execute = page.getByRole('button', { name: /^Execute query/ });
    await execute.waitFor({ timeout: 30_000 });
    const exampleNames = EXAMPLE_QUERIES.map((query) => getOperationAST(parse(query))!.name!.value);
    expect(await page.locator('.graphiql-tab').allInnerTexts()).toEqual(exampleNames);
    await expect.poll(() => textOf(page, '.graphiql-query-editor')).toContain(`query ${exampleNames[0]}`);

    await execute.click();
    const [firstSite] = h.mock.catalog.sites; // the example asks for the first page of sites
    await expect.poll(() => textOf(page, '.result-window'), { timeout: 15_000 }).toContain(`"name": ${JSON.stringify(firstSite!.name)}`);
    expect(await textOf(page, '.result-window')).not.toContain('"errors"');

    expect(browser.requests.filter((url) => url === `${h.url}/graphql`).length).toBeGreaterThanOrEqual(2); // the page, then queries
    expect(browser.externalRequests()).toEqual([]);
    expect(pageErrors).toEqual([]);
    await browser.screenshot('graphiql');
  }, BROWSER_TIMEOUT_MS);
});

// Private: an element's visible text; Monaco draws spaces as no-break spaces.
async function textOf(page: BrowserSession['page'], selector: string): Promise<string> {
  return (await page.locator(selector).innerText()).replaceAll('\u00a0', ' ');
}
