/**
 * Generates TypeScript from schema.graphql with graphql-codegen's core:
 *
 * - src/generated/resolvers-types.ts: the resolver types (typescript + typescript-resolvers);
 * - examples/web/src/generated/graphql.ts: the example page's operations
 *   (examples/web/src/operations.graphql), as typed document nodes (typescript-operations +
 *   typed-document-node).
 *
 * `--check` writes nothing and fails when either committed file is stale (npm test runs it).
 *
 * The codegen CLI is not used: its loaders (URL, GitHub, …) pull in packages that require
 * Node 22, and this project needs nothing but local SDL and operation files.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { codegen } from '@graphql-codegen/core';
import * as typedDocumentNodePlugin from '@graphql-codegen/typed-document-node';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as operationsPlugin from '@graphql-codegen/typescript-operations';
import * as resolversPlugin from '@graphql-codegen/typescript-resolvers';
import { buildASTSchema, buildSchema, concatAST, parse, type DocumentNode, type GraphQLSchema } from 'graphql';

const ROOT = new URL('../', import.meta.url);
const SCHEMA = new URL('schema.graphql', ROOT);
const RECORDS = '../upstream/records.js';
const MODELS = '../data/models.js';

/** One generated file: where it goes and how it is made. */
interface Output {
  file: URL;
  generate(schema: Schema): Promise<string>;
}

interface Schema {
  ast: DocumentNode;
  built: GraphQLSchema;
}

const resolverTypes: Output = {
  file: new URL('src/generated/resolvers-types.ts', ROOT),
  generate: (schema) => codegen({
    filename: fileURLToPath(resolverTypes.file),
    schema: schema.ast,
    schemaAst: schema.built,
    documents: [],
    plugins: [{ add: {} }, { typescript: {} }, { 'typescript-resolvers': {} }],
    pluginMap: {
      add: header('schema.graphql'),
      typescript: typescriptPlugin,
      'typescript-resolvers': resolversPlugin,
    },
    config: {
      useTypeImports: true,
      enumsAsTypes: true,
      contextType: `../graph/context.js#GatewayContext`,
      mappers: {
        City: `${MODELS}#CityModel`,
        Site: `${RECORDS}#SiteRecord`,
        Product: `${RECORDS}#ProductRecord`,
        CargoLane: `${RECORDS}#LaneRecord`,
        Point: `${MODELS}#PointModel`,
        CityPage: `${MODELS}#CityPageModel`,
        SitePage: `${MODELS}#SitePageModel`,
        ProductPage: `${MODELS}#ProductPageModel`,
        ProductStockUpdate: `${MODELS}#ProductStockModel`,
        StockAlert: `${MODELS}#StockAlertModel`,
      },
    },
  }),
};

const WEB_OPERATIONS = new URL('examples/web/src/operations.graphql', ROOT);
/**
 * The directives the gateway serves besides schema.graphql's own (yoga's defer-stream plugin adds
 * them, as graphql-tools declares them): the page's operations may use them.
 */
const SERVED_DIRECTIVES = `
directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @stream(if: Boolean! = true, label: String, initialCount: Int = 0) on FIELD
`;

const webOperations: Output = {
  file: new URL('examples/web/src/generated/graphql.ts', ROOT),
  async generate(schema) {
    // codegen validates the operations against the schema and throws on the first mistake.
    const document = parse(await readFile(WEB_OPERATIONS, 'utf8'));
    const served = concatAST([schema.ast, parse(SERVED_DIRECTIVES)]);
    return codegen({
      filename: fileURLToPath(webOperations.file),
      schema: served,
      schemaAst: buildASTSchema(served),
      documents: [{ location: fileURLToPath(WEB_OPERATIONS), document }],
      // typescript-operations (v6) writes the input types the operations use itself; with the
      // typescript plugin too, each would be declared twice.
      plugins: [{ add: {} }, { 'typescript-operations': {} }, { 'typed-document-node': {} }],
      pluginMap: {
        add: header('schema.graphql and examples/web/src/operations.graphql'),
        'typescript-operations': operationsPlugin,
        'typed-document-node': typedDocumentNodePlugin,
      },
      config: { useTypeImports: true, enumsAsTypes: true },
    });
  },
};

const sdl = await readFile(SCHEMA, 'utf8');
const schema: Schema = { ast: parse(sdl), built: buildSchema(sdl) };
const check = process.argv.includes('--check');
const stale: string[] = [];
for (const output of [resolverTypes, webOperations]) {
  const generated = await output.generate(schema);
  const name = fileURLToPath(output.file).slice(fileURLToPath(ROOT).length);
  if (check) {
    const current = await readFile(output.file, 'utf8').catch(() => '');
    if (current !== generated) stale.push(name);
  } else {
    await mkdir(new URL('.', output.file), { recursive: true });
    await writeFile(output.file, generated);
  }
}
if (stale.length > 0) {
  console.error(`Stale generated code: ${stale.join(', ')}. Run \`npm run codegen\` and commit the result.`);
  process.exit(1);
}

// Private: a plugin that only puts a "generated, do not edit" line on top.
function header(sources: string) {
  return {
    plugin: () => ({ prepend: [`// Generated by \`npm run codegen\` from ${sources}. Do not edit.`], content: '' }),
  };
}
