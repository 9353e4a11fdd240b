/**
 * The examples GraphiQL opens on, one tab each (`EXAMPLE_QUERIES`); the first, `EXAMPLE_QUERY`,
 * is also what a new tab starts with. Their arguments name the demo data (the mock upstream's
 * default catalog): Chongqing (`CQ`, its centre at 29.563, 106.5516) and product `G00001`.
 */

/** A walk from sites through points and lanes to products: what the upstream's own API serves. */
export const EXAMPLE_QUERY = `# vending-graph: one graph over the Vending-Machine
# Open Platform. Press the run button: sites, their city,
# their machines (points), each machine's cargo lanes and
# the product in each lane, in as few upstream calls as
# possible. More examples are in the other tabs.

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

/** The nearest sites holding a product in stock: a question the upstream cannot answer. */
export const NEAREST_IN_STOCK_QUERY = `# The sites within 20 km of central Chongqing that have
# product G00001 in stock, nearest first, with whether
# they are open now and their stock. Answered from the
# gateway's catalog index: extensions.dataAge is its age
# in seconds.

query NearestSitesWithProduct {
  sitesNear(lat: 29.563, lng: 106.5516, radiusKm: 20, hasProduct: "G00001") {
    distanceKm
    site {
      name
      isOpen
      stockSummary { totalStock }
    }
  }
}
`;

/** A city's sites, paged, with their opening hours. */
export const CITY_SITES_QUERY = `# The first page of Chongqing's sites, with their opening
# hours. isOpen: open now, in the sites' time zone (hours
# may pass midnight).

query CitySites {
  city(code: "CQ") {
    name
    sites(pageSize: 5) {
      total
      items { name isOpen openTime closeTime }
    }
  }
}
`;

/** Every example, in tab order. */
export const EXAMPLE_QUERIES: readonly string[] = [EXAMPLE_QUERY, NEAREST_IN_STOCK_QUERY, CITY_SITES_QUERY];
