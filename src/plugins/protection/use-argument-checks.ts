/**
 * Arguments of nested fields, checked before the operation runs. A root field checks its own
 * arguments before its first upstream call; a nested one (`Product.availability`, `City.sites`,
 * `Site.isOpen`) would only be reached after its parent was loaded, so a bad argument there
 * would cost upstream calls for an answer that fails anyway. Here it costs none: the operation
 * is refused with the `BAD_USER_INPUT` errors of every bad argument, and nothing runs.
 */
import { getArgumentValues, GraphQLError, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { TimeReader } from '../../catalog/opening-hours.js';
import { atArg, availabilityArgs, pageArgs } from '../../resolvers/arguments.js';
import type { RequestScope } from '../serving/use-request-scope.js';

export interface ArgumentCheckSettings {
  /** `MAX_PAGE_SIZE`. */
  maxPageSize: number;
  siteTime: TimeReader;
}

type Check = (args: Record<string, unknown>) => void;

export function useArgumentChecks({ maxPageSize, siteTime }: ArgumentCheckSettings): Plugin<{ scope?: RequestScope }> {
  const checks: Record<string, Check> = {
    'City.sites': (args) => pageArgs(args, maxPageSize),
    'Product.availability': (args) => availabilityArgs(args),
    'Site.isOpen': (args) => atArg(args.at as string | null | undefined, siteTime),
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const typeInfo = new TypeInfo(args.schema);
      const errors: GraphQLError[] = [];
      visit(args.document, visitWithTypeInfo(typeInfo, {
        Field(node) {
          const parent = typeInfo.getParentType();
          const field = typeInfo.getFieldDef();
          const check = parent && field ? checks[`${parent.name}.${field.name}`] : undefined;
          if (check === undefined || field === null || field === undefined) return;
          try {
            check(getArgumentValues(field, node, args.variableValues ?? {}));
          } catch (error) {
            if (!(error instanceof GraphQLError)) throw error;
            errors.push(new GraphQLError(error.message, { nodes: node, extensions: error.extensions }));
          }
        },
      }));
      if (errors.length === 0) return;
      args.contextValue.scope?.dispose();
      setResultAndStopExecution({ errors });
    },
  };
}
