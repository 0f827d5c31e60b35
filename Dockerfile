# The service image: `docker build -t agent-orchestrator .` (or podman/buildah). Non-root, production
# dependencies only, a health check on readiness, and /data for the embedded Postgres when DATABASE_URL is unset.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY console ./console
RUN npm run build

# Production dependencies. Nest, TypeORM and swagger are peer dependencies (an embedding host brings its own),
# kept in devDependencies for the build; the image is the standalone service, so they move to dependencies
# before the prune drops what is dev only. Then what only a compiler or a reader needs goes: source maps,
# type declarations, docs — but TypeScript's and @langchain's declarations stay: the schemas of an Annotation
# graph are read from its source's types (`/assistants/{id}/schemas`), by the TypeScript compiler.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && node -e "const fs = require('fs'); const p = require('./package.json'); for (const n of Object.keys(p.peerDependencies)) { \
       p.dependencies[n] = p.devDependencies[n]; delete p.devDependencies[n]; } fs.writeFileSync('package.json', JSON.stringify(p, null, 2));" \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && find node_modules -type f \( -name '*.map' -o -name '*.md' \) -delete \
  && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) \
       -not -path 'node_modules/typescript/*' -not -path 'node_modules/@langchain/*' -delete \
  && rm -rf node_modules/typeorm/browser \
  && npm cache clean --force

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data PORT=3000
RUN mkdir -p /data && chown node:node /data
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
