/**
 * Global ids: `base64url(JSON.stringify([type, ...keys]))`: opaque, stable, distinct across
 * types. A point's id carries its site's code too, having no upstream operation of its own.
 */
export type NodeType = 'City' | 'Site' | 'Point' | 'Product';

const NODE_TYPES: ReadonlySet<string> = new Set<NodeType>(['City', 'Site', 'Point', 'Product']);
const KEY_COUNT: Record<NodeType, number> = { City: 1, Site: 1, Point: 2, Product: 1 };

export function encodeId(type: NodeType, ...keys: string[]): string {
  return Buffer.from(JSON.stringify([type, ...keys])).toString('base64url');
}

/** The type and keys of a global id, or `null` when it is not one of ours. */
export function decodeId(id: string): { type: NodeType; keys: string[] } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(id, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string' && part !== '')) return null;
  const [type, ...keys] = parsed as string[];
  if (type === undefined || !NODE_TYPES.has(type)) return null;
  const nodeType = type as NodeType;
  return keys.length === KEY_COUNT[nodeType] ? { type: nodeType, keys } : null;
}
