import type { NodeResolvers } from '../../generated/resolvers-types.js';
import type { Loaders } from '../../data/loaders.js';
import type { ProductRecord, SiteRecord } from '../../upstream/records.js';
import type { NodeType } from '../ids.js';
import type { CityModel, PointModel } from '../../data/models.js';

type NodeModel = CityModel | SiteRecord | PointModel | ProductRecord;

/** `Query.node`: the object behind a checked global id; null when it no longer exists. */
export async function resolveNode(decoded: { type: NodeType; keys: string[] }, loaders: Loaders): Promise<NodeModel | null> {
  const [key, pointCode] = decoded.keys as [string, string?];
  switch (decoded.type) {
    case 'City':
      return loaders.cityByCode.load(key);
    case 'Site':
      return loaders.siteByCode.load(key);
    case 'Product':
      return loaders.productByGoodsCode.load(key);
    case 'Point': {
      const site = await loaders.siteByCode.load(key);
      const point = site?.points?.find((candidate) => candidate.code === pointCode);
      return site && point ? { ...point, site } : null;
    }
  }
}

/** The tag of the object behind a global id, found or not; a point's is its site's. */
export function tagOfNode({ type, keys }: { type: NodeType; keys: string[] }): [kind: string, code: string] {
  return [type === 'Point' ? 'site' : type.toLowerCase(), keys[0]!];
}

export const Node: NodeResolvers = {
  // The models have no type tag; each has a field the others lack.
  __resolveType: (model) => {
    if ('site' in model) return 'Point';
    if ('goodsCode' in model) return 'Product';
    if ('state' in model) return 'Site';
    return 'City';
  },
};
