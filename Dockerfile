FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY console ./console
# Nest and TypeORM are peer dependencies (a host brings its own) kept in devDependencies for the build: the prune
# drops them, so they go back at the versions of the lock
RUN npm run build && npm prune --omit=dev \
 && npm install --no-save --no-audit --no-fund --omit=dev $(node -p "const lock = require('./package-lock.json').packages; \
      Object.keys(require('./package.json').peerDependencies).map((n) => n + '@' + lock['node_modules/' + n].version).join(' ')")

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
EXPOSE 3000
CMD ["node", "dist/main.js"]
