FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY console ./console
# Nest and TypeORM are peer dependencies (a host brings its own) kept in devDependencies for the build; the image
# is the standalone service, so they move to dependencies before the prune drops what is dev only
RUN npm run build \
 && node -e "const fs = require('fs'); const p = require('./package.json'); for (const n of Object.keys(p.peerDependencies)) { \
      p.dependencies[n] = p.devDependencies[n]; delete p.devDependencies[n]; } fs.writeFileSync('package.json', JSON.stringify(p, null, 2));" \
 && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
EXPOSE 3000
CMD ["node", "dist/main.js"]
