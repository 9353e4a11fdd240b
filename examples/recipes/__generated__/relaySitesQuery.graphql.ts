/**
 * @generated SignedSource<<34ecad7ac19f60b29df2b83974c688de>>
 * @relayHash e1cb85b8adefc6d8904fad3e46b6a190
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

// @relayRequestID e1cb85b8adefc6d8904fad3e46b6a190

import type { ConcreteRequest } from 'relay-runtime';
export type relaySitesQuery$variables = {
  city: string;
};
export type relaySitesQuery$data = {
  readonly sites: {
    readonly items: ReadonlyArray<{
      readonly city: {
        readonly name: string;
      } | null | undefined;
      readonly code: string;
      readonly id: string;
      readonly name: string;
      readonly stockSummary: {
        readonly totalStock: number;
      };
    }>;
    readonly total: number;
  };
};
export type relaySitesQuery = {
  response: relaySitesQuery$data;
  variables: relaySitesQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "city"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "cityCode",
    "variableName": "city"
  },
  {
    "kind": "Literal",
    "name": "pageSize",
    "value": 5
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "total",
  "storageKey": null
},
v3 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
},
v4 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "code",
  "storageKey": null
},
v5 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "name",
  "storageKey": null
},
v6 = {
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
    "name": "relaySitesQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "SitePage",
        "kind": "LinkedField",
        "name": "sites",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "concreteType": "Site",
            "kind": "LinkedField",
            "name": "items",
            "plural": true,
            "selections": [
              (v3/*:: as any*/),
              (v4/*:: as any*/),
              (v5/*:: as any*/),
              {
                "alias": null,
                "args": null,
                "concreteType": "City",
                "kind": "LinkedField",
                "name": "city",
                "plural": false,
                "selections": [
                  (v5/*:: as any*/)
                ],
                "storageKey": null
              },
              (v6/*:: as any*/)
            ],
            "storageKey": null
          }
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
    "name": "relaySitesQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "SitePage",
        "kind": "LinkedField",
        "name": "sites",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "concreteType": "Site",
            "kind": "LinkedField",
            "name": "items",
            "plural": true,
            "selections": [
              (v3/*:: as any*/),
              (v4/*:: as any*/),
              (v5/*:: as any*/),
              {
                "alias": null,
                "args": null,
                "concreteType": "City",
                "kind": "LinkedField",
                "name": "city",
                "plural": false,
                "selections": [
                  (v5/*:: as any*/),
                  (v3/*:: as any*/)
                ],
                "storageKey": null
              },
              (v6/*:: as any*/)
            ],
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "e1cb85b8adefc6d8904fad3e46b6a190",
    "id": "e1cb85b8adefc6d8904fad3e46b6a190",
    "metadata": {},
    "name": "relaySitesQuery",
    "operationKind": "query",
    "text": "query relaySitesQuery(\n  $city: String!\n) {\n  sites(cityCode: $city, pageSize: 5) {\n    total\n    items {\n      id\n      code\n      name\n      city {\n        name\n        id\n      }\n      stockSummary {\n        totalStock\n      }\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "f4def3404fa5d5e177d08c2d546ff97f";

export default node;
