import { buildSchema, getOperationAST, parse, validate } from 'graphql';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_QUERIES } from '../../../src/pages/explorer/example-query.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const SCHEMA = buildSchema(readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8'));

/**
 * What the page's markup makes the browser load: `src` and `href` attributes (outside inline
 * scripts and styles, whose text is not markup) and the `url()`s and `@import`s of its styles.
 */
function loadedUrls(html: string): string[] {
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((match) => match[1]!);
  const markup = html.replace(/<(script|style)\b([^>]*)>[\s\S]*?<\/\1>/gi, '<$1$2></$1>');
  const attributes = [...markup.matchAll(/\s(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)];
  const fromStyles = styles.flatMap((css) => [...css.matchAll(/url\(\s*['"]?([^'")]+)|@import\s+['"]([^'"]+)/gi)]);
  return [...attributes, ...fromStyles].map((match) => match.slice(1).find((group) => group !== undefined)!);
}

describe('the GraphiQL page', () => {
  let h: Harness;
  let html: string;
  beforeAll(async () => {
    h = await startGateway();
    const response = await fetch(`${h.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    html = await response.text();
  });
  afterAll(() => h.close());

  it('loads no script, style, icon or font from another host: the gateway serves them all', async () => {
    const urls = loadedUrls(html);
    expect(urls.length).toBe(3); // the favicon, the style sheet, the script
    const gateway = new URL(h.url);
    const texts = await Promise.all(urls.map(async (url) => (await fetch(new URL(url, gateway))).text()));
    const styles = texts[urls.findIndex((url) => url.endsWith('.css'))]!;
    const fromStyles = loadedUrls(`<style>${styles}</style>`);
    expect(fromStyles.length).toBeGreaterThan(0); // GraphiQL's fonts and icons
    const external = [...urls, ...fromStyles].filter((url) => {
      const { protocol, host } = new URL(url, gateway);
      return protocol !== 'data:' && protocol !== 'blob:' && host !== gateway.host;
    });
    expect(external).toEqual([]);
    expect(texts[urls.findIndex((url) => url.endsWith('.js'))]).toContain('YogaGraphiQL.renderYogaGraphiQL');
  });

  it('carries every example, each a named operation valid against schema.graphql', () => {
    expect(EXAMPLE_QUERIES.length).toBeGreaterThanOrEqual(3);
    for (const query of EXAMPLE_QUERIES) {
      expect(html).toContain(JSON.stringify(query));
      const document = parse(query);
      expect(getOperationAST(document)?.name?.value).toEqual(expect.any(String));
      expect(validate(SCHEMA, document)).toEqual([]);
    }
  });

  it('answers every example from the demo data, with sites and without errors', async () => {
    const siteNames = new Set(h.mock.catalog.sites.map((site) => site.name));
    for (const query of EXAMPLE_QUERIES) {
      const { data, errors } = await h.query(query);
      expect(errors, query).toBeUndefined();
      const answer = JSON.stringify(data);
      expect([...siteNames].some((name) => answer.includes(`"name":${JSON.stringify(name)}`)), query).toBe(true);
    }
  });
});
