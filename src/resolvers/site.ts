import type { SiteResolvers } from '../generated/resolvers-types.js';
import { encodeId } from './ids.js';

export const Site: SiteResolvers = {
  id: (site) => encodeId('Site', site.code),
  enabled: (site) => site.state === 1,

  // list-with-points says the city; other sources need the site-to-city index.
  city(site, _, { loaders }) {
    if (site.cityCode === null) return loaders.cityBySiteCode.load(site.code);
    if (site.cityName === null) return loaders.cityByCode.load(site.cityCode);
    return { code: site.cityCode, name: site.cityName };
  },

  // A plain list carries no points: fall back to the site's detail (normally already cached).
  async points(site, _, { loaders }) {
    const source = site.points === null ? await loaders.siteByCode.load(site.code) : site;
    return (source?.points ?? []).map((point) => ({ ...point, site }));
  },
};
