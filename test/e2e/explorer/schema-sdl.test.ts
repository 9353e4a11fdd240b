import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const SCHEMA_SDL = readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8');
const KEY = 'explorer-key-0123456789';

describe('GET /schema.graphql', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('serves the text of schema.graphql, which builds into the gateway schema', async () => {
    h = await startGateway();
    const response = await fetch(`${h.url}/schema.graphql`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const sdl = await response.text();
    expect(sdl).toBe(SCHEMA_SDL);
    const fields = buildSchema(sdl).getQueryType()!.getFields();
    expect(Object.keys(fields)).toEqual(expect.arrayContaining(['sites', 'sitesNear', 'city']));
  });

  it('is not found when introspection is off, like __schema', async () => {
    h = await startGateway({ env: { INTROSPECTION: 'false' } });
    const response = await fetch(`${h.url}/schema.graphql`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('type Query');
  });

  it('needs an API key when keys are set', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: KEY } });
    expect((await fetch(`${h.url}/schema.graphql`)).status).toBe(401);
    const keyed = await fetch(`${h.url}/schema.graphql`, { headers: { 'x-api-key': KEY } });
    expect(keyed.status).toBe(200);
    expect(await keyed.text()).toBe(SCHEMA_SDL);
  });
});
