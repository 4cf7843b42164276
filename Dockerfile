# The Vigil image: vigil-recorder (the entrypoint) and vigil-operator, on Debian bookworm with Debian's ffmpeg.
# Build from the repository root:
#   docker build --build-arg VERSION="$(node -p 'require("./package.json").version')" -t vigil:0.1.0 .
# The recorder Pods run it as it is (the operator passes only --config); the operator Deployment runs vigil-operator.
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every workspace compiled, the recorder's web page bundled (npm run build) ---
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc tsconfig.base.json tsconfig.json ./
COPY crds/package.json crds/
COPY kube/package.json kube/
COPY testing/package.json testing/
COPY recorder/package.json recorder/
COPY operator/package.json operator/
COPY deploy-tests/package.json deploy-tests/
COPY monitoring/package.json monitoring/
RUN npm ci --no-audit --no-fund
COPY crds crds
COPY kube kube
COPY testing testing
COPY recorder recorder
COPY operator operator
COPY deploy-tests deploy-tests
COPY monitoring monitoring
RUN npm run build

# --- deps: production dependencies of the four runtime workspaces only (the test support and tests stay out) ---
FROM ${NODE_IMAGE} AS deps
WORKDIR /opt/vigil
COPY package.json package-lock.json .npmrc ./
COPY crds/package.json crds/
COPY kube/package.json kube/
COPY recorder/package.json recorder/
COPY operator/package.json operator/
RUN node -e 'const fs = require("fs"); const p = JSON.parse(fs.readFileSync("package.json", "utf8")); p.workspaces = ["crds", "kube", "recorder", "operator"]; fs.writeFileSync("package.json", JSON.stringify(p, null, 2));' \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# --- runtime ---
FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="vigil" \
      org.opencontainers.image.description="Vigil camera recording: vigil-recorder and vigil-operator" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.base.name="docker.io/library/node:20-bookworm-slim"
# ffmpeg records and remuxes; tini is PID 1 (it forwards SIGTERM and reaps ffmpeg's orphans); ca-certificates for rtsps/https.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 vigil \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /var/lib/vigil --shell /usr/sbin/nologin vigil \
 && mkdir -p /etc/vigil /var/lib/vigil/recordings /var/lib/vigil/data \
 && chown -R 10001:10001 /var/lib/vigil
WORKDIR /opt/vigil
COPY --from=deps /opt/vigil/package.json ./
COPY --from=deps /opt/vigil/node_modules node_modules
COPY --from=build /src/crds/package.json crds/
COPY --from=build /src/crds/dist/src crds/dist/src
COPY --from=build /src/kube/package.json kube/
COPY --from=build /src/kube/dist/src kube/dist/src
COPY --from=build /src/recorder/package.json recorder/
COPY --from=build /src/recorder/bin recorder/bin
COPY --from=build /src/recorder/dist/src recorder/dist/src
COPY --from=build /src/recorder/dist/web recorder/dist/web
COPY --from=build /src/operator/package.json operator/
COPY --from=build /src/operator/bin operator/bin
COPY --from=build /src/operator/dist/src operator/dist/src
RUN ln -s /opt/vigil/recorder/bin/vigil-recorder.js /usr/local/bin/vigil-recorder \
 && ln -s /opt/vigil/operator/bin/vigil-operator.js /usr/local/bin/vigil-operator \
 && vigil-recorder --version \
 && { vigil-operator --help 2>&1 || true; } | grep -q '^vigil-operator: usage:' 
ENV NODE_ENV=production
USER 10001:10001
EXPOSE 9997 9998 8080
ENTRYPOINT ["/usr/bin/tini", "--", "vigil-recorder"]
CMD ["--config", "/etc/vigil/config.yaml"]
