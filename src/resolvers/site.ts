import type { SiteResolvers } from '../generated/resolvers-types.js';
import { encodeId } from './ids.js';

export const Site: SiteResolvers = {
  id: (site) => encodeId('Site', site.code),
  enabled: (site) => site.state === 1,

  // list-with-points says the city; other sources need the site-to-city index.
  async city(site, _, { loaders }) {
    const cityCode = site.cityCode ?? (await loaders.cityCodeBySiteCode.load(site.code));
    return cityCode === null ? null : loaders.cityByCode.load(cityCode);
  },

  // A plain list carries no points: fall back to the site's detail (normally already cached).
  async points(site, _, { loaders }) {
    const source = site.points === null ? await loaders.siteByCode.load(site.code) : site;
    return (source?.points ?? []).map((point) => ({ ...point, site }));
  },
};
