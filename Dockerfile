# regrid service image. Cassandra and Redis run as their own containers (docker-compose.yml);
# with CASSANDRA_CONTACT_POINTS set, the service provisions nothing itself.
FROM node:20-slim

WORKDIR /app

# Dependencies first, so source edits do not invalidate the npm layer. Dev dependencies stay in:
# `npm start` runs the TypeScript entry point through tsx.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json ./
COPY bin ./bin
COPY cql ./cql
COPY src ./src

ENV HOST=0.0.0.0 \
    PORT=8080
EXPOSE 8080

# Unprivileged user from the base image.
USER node

CMD ["npm", "start"]
