# regrid service image, two stages. Cassandra and Redis run as their own containers
# (docker-compose.yml); the service provisions nothing itself (NODE_ENV=production).
# scripts/check-containers.sh replays the runtime stage without Docker.

# --- build: every dependency; compile src/ to dist/ and build the web editor into web/dist.
FROM node:20-slim AS build
WORKDIR /app
# Dependencies first, so source edits do not invalidate the npm layer.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# Everything else .dockerignore lets through (the editor's build needs client/src too).
COPY . .
RUN npm run build

# --- runtime: production dependencies only, the build's output, an unprivileged user.
FROM node:20-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY cql ./cql
# The node user of the base image; it owns nothing it could rewrite under /app.
USER node
EXPOSE 8080
# /readyz: 200 while Cassandra answers (Redis down is only "degraded"), 503 otherwise.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
