/** The operations the incremental delivery tests share: a site at once, its lanes' products deferred. */
const LANES = `points { id code cargoLanes { stock product { id goodsCode productName } } }`;

export const SITE_DEFERRED = `query SiteLanes($c: String!) { site(code: $c) { id code name ... @defer(label: "lanes") { ${LANES} } } }`;
export const SITE_PLAIN = `query SiteLanes($c: String!) { site(code: $c) { id code name ${LANES} } }`;
