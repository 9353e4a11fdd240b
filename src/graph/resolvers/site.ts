import { isEnabled, stockSummary } from '../../catalog/catalog.js';
import { isOpenAt } from '../../catalog/opening-hours.js';
import type { SiteResolvers } from '../../generated/resolvers-types.js';
import type { Loaders } from '../../data/loaders.js';
import type { SiteRecord } from '../../upstream/records.js';
import { atArg } from '../arguments/values.js';
import { encodeId } from '../ids.js';
import { checkedInt } from './upstream-data.js';

export const Site: SiteResolvers = {
  id: (site) => encodeId('Site', site.code),
  enabled: isEnabled,
  gradeType: (site) => checkedInt(site, 'gradeType'),

  // list-with-points says the city; other sources need the site-to-city index.
  city(site, _, { loaders }) {
    if (site.cityCode === null) return loaders.cityBySiteCode.load(site.code);
    if (site.cityName === null) return loaders.cityByCode.load(site.cityCode);
    return { code: site.cityCode, name: site.cityName };
  },

  async points(site, _, { loaders }) {
    return ((await withPoints(site, loaders))?.points ?? []).map((point) => ({ ...point, site }));
  },

  isOpen(site, { at }, { siteTime, scope }) {
    if (at === null || at === undefined) scope.readsTheTime();
    return isOpenAt(site.openTime, site.closeTime, atArg(at, siteTime));
  },

  // From the site's own lanes, as the rest of the site is: no index needed.
  async stockSummary(site, _, { loaders }) {
    return stockSummary((await withPoints(site, loaders)) ?? site);
  },
};

// Private: a plain list carries no points: fall back to the site's detail (normally cached).
async function withPoints(site: SiteRecord, loaders: Loaders): Promise<SiteRecord | null> {
  return site.points === null ? loaders.siteByCode.load(site.code) : site;
}
