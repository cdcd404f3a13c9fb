# syntax=docker/dockerfile:1
# Larder in a container (docs/deployment.md#docker). Two stages: the first installs every
# dependency and compiles TypeScript to dist/; the second holds only production dependencies,
# the compiled code and the console's static files, and runs as the unprivileged `node` user.
#   docker build -t larder .
#   docker run -p 3000:3000 -v larder-data:/data larder
# Not built in Larder's CI (no Docker engine there): see docs/deployment.md for what was checked.

ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# All dependencies: the compiler is a dev dependency.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/build.mjs
COPY src src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    LARDER_HOST=0.0.0.0 \
    LARDER_PORT=3000 \
    LARDER_DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules node_modules
COPY --from=build --chown=root:root /app/dist dist
COPY --chown=root:root package.json ./
COPY --chown=root:root bin bin
COPY --chown=root:root console console
# The embedded engine's data, generated keys (larder-keys.env) and local file uploads. Owned by
# `node` (uid 1000), the only thing the process may write.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# /health answers 200 when the database answers (503 while draining on SIGTERM).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.LARDER_PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# bin/larder.js runs dist/ (no src/ in the image, so never the TypeScript sources).
CMD ["node", "bin/larder.js", "serve"]
