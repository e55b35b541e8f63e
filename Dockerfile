# regrid service image. Cassandra and Redis run as their own containers (docker-compose.yml);
# with CASSANDRA_CONTACT_POINTS set, the service provisions nothing itself.
FROM node:20-slim

WORKDIR /app

# Dependencies first, so source edits do not invalidate the npm layer. Dev dependencies stay in:
# tsx runs the TypeScript entry point, vite builds the web editor.
# --ignore-scripts: `prepare` builds the web editor, whose sources are copied below.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts && npm cache clean --force

COPY tsconfig.json ./
COPY bin ./bin
COPY cql ./cql
COPY src ./src
COPY web ./web
RUN npm run build:web

ENV HOST=0.0.0.0 \
    PORT=8080
EXPOSE 8080

# Unprivileged user from the base image.
USER node

# tsx directly: `npm start` would rebuild the editor (prestart) into a folder this user cannot write.
CMD ["npx", "tsx", "src/main.ts"]
