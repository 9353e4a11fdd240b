# syntax=docker/dockerfile:1
# vending-graph: build with the dev toolchain, run on a slim image with production deps only.
# NODE_VERSION tracks the current Node.js LTS line.
ARG NODE_VERSION=26

FROM node:${NODE_VERSION}-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json schema.graphql ./
# `npm run build` is scripts/build.ts (it builds only what is out of date; here, everything).
COPY scripts/build.ts ./scripts/build.ts
COPY src ./src
# The example page (served at /demo in demo mode): `npm run build` builds it into dist/web.
COPY examples/web ./examples/web
RUN npm run build

FROM node:${NODE_VERSION}-slim AS runtime
ENV NODE_ENV=production \
    PORT=4000 \
    HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# dist holds the gateway (dist/*.js) and the example page (dist/web).
COPY --from=build /app/dist ./dist
COPY schema.graphql ./
USER node
EXPOSE ${PORT}
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Without UPSTREAM_BASE_URL the image starts in demo mode, with the built-in mock upstream.
# The node options of `npm start` (package.json), which the bench starts the gateway with too
# (test/project/runtime.test.ts checks they agree): a smaller young generation; why and what it
# saved: docs/performance.md ("Resident memory").
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
