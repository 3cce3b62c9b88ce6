# Flotilla agent image. Build from the repository root:
#   docker build -f deploy/images/agent.Dockerfile -t flotilla-agent .
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

# The npm packages the agent's compiled code requires, with their dependencies,
# and nothing else: the repository's one package.json also lists the hub's.
FROM build AS agent-modules
RUN node deploy/images/copy-app-modules.mjs dist/apps/agent/src/main.js /agent/node_modules

# Runtime stage: Node only. npm, npx, corepack and yarn are removed, there is no
# compiler, and the app files belong to root so the app user cannot change them.
FROM ${NODE_IMAGE}
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
           /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
 && mkdir -p /var/cache/flotilla \
 && chown 65532:65532 /var/cache/flotilla
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=agent-modules /agent/node_modules ./node_modules
# the agent's code and the libs it imports; the hub's code stays out
COPY --from=build /src/dist/apps/agent ./dist/apps/agent
COPY --from=build /src/dist/libs ./dist/libs
COPY --from=build /src/dist/node_modules ./dist/node_modules
COPY --from=build /cue-wasm ./cue-wasm
# The only writable places the agent needs: --cache-dir (artifacts and modules)
# and the temp dir. deploy/agent/deployment.yaml mounts an emptyDir at
# /var/cache/flotilla; the root file system stays read-only.
ENV NODE_ENV=production \
    FLOTILLA_CUE_WASM_DIR=/app/cue-wasm
USER 65532:65532
EXPOSE 9090
# node itself is PID 1: main.ts handles SIGTERM (stop the controller, release the Lease, exit 0)
ENTRYPOINT ["node", "dist/apps/agent/src/main.js"]
CMD ["--cache-dir=/var/cache/flotilla", "--http-address=0.0.0.0:9090"]
