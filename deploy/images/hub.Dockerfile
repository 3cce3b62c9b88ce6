# Flotilla hub image. Build from the repository root:
#   docker build -f deploy/images/hub.Dockerfile -t flotilla-hub .
# NODE_VERSION is the Node the CI suites also run on (scripts/test-on-node-lts.mjs).
ARG NODE_VERSION=24.21.0
ARG GO_VERSION=1.26.8
# The base images: the official ones unless a build passes its own. Where no
# registry of base images is reachable, test/images/build.mjs builds both
# locally (Debian packages, Node from the npm registry, the host's Go).
ARG NODE_IMAGE=node:${NODE_VERSION}-trixie-slim
ARG GO_IMAGE=golang:${GO_VERSION}-trixie

FROM ${GO_IMAGE} AS go

# Build stage: the same npm scripts CI runs (.ci/run), with Go for the CUE helper and its wasm fallback.
FROM ${NODE_IMAGE} AS build
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH \
    FLOTILLA_CACHE_DIR=/build-cache
WORKDIR /src
COPY package.json package-lock.json ./
# npm install, not npm ci: see .ci/run (the lock file holds one platform's optional binaries)
RUN npm install --no-audit --no-fund
# marks the layers that change with every source change, so a builder can prune old ones
LABEL dev.flotilla.image-stage=build
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && mkdir /cue-wasm \
 && cp "$(node -p "require('./libs/cue/.wasm-location.json').dir")"/cue.wasm \
       "$(node -p "require('./libs/cue/.wasm-location.json').dir")"/wasm_exec.js \
       "$(node -p "require('./libs/cue/.wasm-location.json').dir")"/cue-native /cue-wasm/

# Runtime stage: Node only. npm, npx, corepack and yarn are removed, there is no
# compiler, and the app files belong to root so the app user cannot change them.
FROM ${NODE_IMAGE}
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
           /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
 && mkdir -p /var/lib/flotilla \
 && chown 65532:65532 /var/lib/flotilla
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /cue-wasm ./cue-wasm
# the agent manifests and CRD, for GET /api/v1/clusters/{name}/agent/manifest: one source, no copy to drift
COPY --from=build /src/deploy/agent ./deploy/agent
COPY --from=build /src/deploy/agent-connected ./deploy/agent-connected
# The only writable places the hub needs: FLOTILLA_DATA_DIR (embedded database,
# generated keys) and the temp dir (fetched sources and modules). Mount both as
# volumes when the root file system is read-only (the Helm chart does).
ENV NODE_ENV=production \
    FLOTILLA_CUE_WASM_DIR=/app/cue-wasm \
    FLOTILLA_DATA_DIR=/var/lib/flotilla \
    PORT=8080
USER 65532:65532
# 8080: API; 9443: the gRPC server connected agents dial
EXPOSE 8080 9443
# node itself is PID 1: main.ts handles SIGTERM (drain, close, exit 0)
ENTRYPOINT ["node", "dist/apps/hub/src/main.js"]
