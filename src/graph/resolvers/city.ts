import type { CityResolvers } from '../../generated/resolvers-types.js';
import { UpstreamError } from '../../upstream/errors.js';
import { ARGUMENT_RULES as RULES } from '../arguments/rules.js';
import { pageArgs } from '../arguments/values.js';
import { sliceConnection } from '../connections/build.js';
import { sitesCatalog } from './catalog.js';
import { encodeId } from '../ids.js';
import { pageOf } from './page.js';

export const City: CityResolvers = {
  id: (city) => encodeId('City', city.code),

  async cityId(city, _, { loaders }) {
    const id = city.id ?? (await loaders.cityByCode.load(city.code))?.id;
    if (id === undefined) throw new UpstreamError('UPSTREAM_ERROR', `City ${city.code} is not in the upstream's city list`);
    return id;
  },

  async sites(city, args, context) {
    const { page, pageSize } = pageArgs(args, context.maxPageSize);
    const catalog = await sitesCatalog(context, 'City.sites');
    return pageOf(catalog.sitesByCity.get(city.code) ?? [], page, pageSize);
  },

  async sitesConnection(city, args, context) {
    const { window, list } = RULES['City.sitesConnection'](args, context, city.code);
    const catalog = await sitesCatalog(context, 'City.sitesConnection');
    return sliceConnection(catalog.sitesByCity.get(city.code) ?? [], window, list, context.cursors, (site) => ({ node: site }));
  },
};
