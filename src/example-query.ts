/** The query GraphiQL opens on: a walk from sites through points and lanes to products. */
export const EXAMPLE_QUERY = `# vending-graph: one graph over the Vending-Machine Open Platform.
# Press the run button. Sites, their city, their machines (points), each machine's
# cargo lanes, and the full product in each lane come from as few upstream calls as possible.

query SitesWithProducts {
  sites(page: 1, pageSize: 3) {
    total
    hasNextPage
    items {
      id
      code
      name
      enabled
      openTime
      closeTime
      city { name }
      points {
        code
        name
        cargoLanes {
          goodsCode
          stock
          guidePrice
          product { productName ipName guidePrice }
        }
      }
    }
  }
}
`;
