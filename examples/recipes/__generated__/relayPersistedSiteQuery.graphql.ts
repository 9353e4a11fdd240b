/**
 * @generated SignedSource<<160b9bb02f671322f1c8972030ca5ab9>>
 * @relayHash 681178b4310036cb821fda36bcdb09a5
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

// @relayRequestID 681178b4310036cb821fda36bcdb09a5

import type { ConcreteRequest } from 'relay-runtime';
export type relayPersistedSiteQuery$variables = {
  code: string;
};
export type relayPersistedSiteQuery$data = {
  readonly site: {
    readonly city: {
      readonly name: string;
    } | null | undefined;
    readonly code: string;
    readonly id: string;
    readonly name: string;
    readonly stockSummary: {
      readonly totalStock: number;
    };
  } | null | undefined;
};
export type relayPersistedSiteQuery = {
  response: relayPersistedSiteQuery$data;
  variables: relayPersistedSiteQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "code"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "code",
    "variableName": "code"
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
},
v3 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "code",
  "storageKey": null
},
v4 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "name",
  "storageKey": null
},
v5 = {
  "alias": null,
  "args": null,
  "concreteType": "SiteStock",
  "kind": "LinkedField",
  "name": "stockSummary",
  "plural": false,
  "selections": [
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "totalStock",
      "storageKey": null
    }
  ],
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "relayPersistedSiteQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "Site",
        "kind": "LinkedField",
        "name": "site",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "concreteType": "City",
            "kind": "LinkedField",
            "name": "city",
            "plural": false,
            "selections": [
              (v4/*:: as any*/)
            ],
            "storageKey": null
          },
          (v5/*:: as any*/)
        ],
        "storageKey": null
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "relayPersistedSiteQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "Site",
        "kind": "LinkedField",
        "name": "site",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "concreteType": "City",
            "kind": "LinkedField",
            "name": "city",
            "plural": false,
            "selections": [
              (v4/*:: as any*/),
              (v2/*:: as any*/)
            ],
            "storageKey": null
          },
          (v5/*:: as any*/)
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "681178b4310036cb821fda36bcdb09a5",
    "id": "681178b4310036cb821fda36bcdb09a5",
    "metadata": {},
    "name": "relayPersistedSiteQuery",
    "operationKind": "query",
    "text": "query relayPersistedSiteQuery(\n  $code: String!\n) {\n  site(code: $code) {\n    id\n    code\n    name\n    city {\n      name\n      id\n    }\n    stockSummary {\n      totalStock\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "fc703fd9d2a4ff486603ae12ad1f2c25";

export default node;
