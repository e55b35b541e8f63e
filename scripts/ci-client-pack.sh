#!/usr/bin/env bash
# The client package as another project gets it: `npm pack` in client/ (its prepack builds
# client/dist afresh), the tarball checked for its .d.ts files, installed offline into an empty
# project (the package has no dependencies), its types compiled against a consumer
# (scripts/client-pack/types.ts) and a plain Node ESM script (scripts/client-pack/check.mjs) run
# against a regrid service this script starts: `tsx tools/dev-start.ts` (what `npm start` runs) in development (no
# AUTH_JWT_SECRET: /dev/token hands out a token) on a free port, over a fresh keyspace
# (CLIENT_PACK_KEYSPACE, default regrid_ci_client) on the configured Cassandra node. The service
# is stopped by its PID; the throwaway folder under /tmp is removed (REGRID_CI_KEEP_PACK=1 keeps it).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"
KEYSPACE="${CLIENT_PACK_KEYSPACE:-regrid_ci_client}"
WORK="$(mktemp -d /tmp/regrid-client-pack.XXXXXX)"
SERVER_PID=""
say() { echo "client-pack: $*"; }

cleanup() {
  rc=$?
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ $rc -ne 0 && -f "$WORK/server.log" ]]; then
    echo "--- tail of the service's log"; tail -n 30 "$WORK/server.log"
  fi
  if [[ "${REGRID_CI_KEEP_PACK:-0}" == 1 ]]; then say "kept $WORK"; else rm -rf "$WORK"; fi
  exit $rc
}
trap cleanup EXIT

node -e 'if (+process.versions.node.split(".")[0] < 20) { console.error("Node 20+ needed"); process.exit(1) }'

# 1. Pack: prepack runs the package's build (tsc, from the repository's node_modules).
TARBALL="$WORK/$(cd client && npm pack --silent --pack-destination "$WORK" | tail -n 1)"
say "packed $(basename "$TARBALL") ($(du -k "$TARBALL" | cut -f1) KB)"
LISTING="$(tar -tzf "$TARBALL")"
for f in package/package.json package/dist/index.js package/dist/index.d.ts package/dist/api.gen.d.ts; do
  grep -qx "$f" <<<"$LISTING" || { say "FAIL: $f is not in the tarball"; exit 1; }
done
if grep -q '^package/src/' <<<"$LISTING"; then say "FAIL: the tarball carries src/"; exit 1; fi
say "tarball holds $(grep -c '\.d\.ts$' <<<"$LISTING") .d.ts files and $(grep -c '\.js$' <<<"$LISTING") .js files"

# 2. An empty project installs it, offline: nothing else may be needed.
APP="$WORK/app"
mkdir -p "$APP"
cd "$APP"
printf '{ "name": "client-pack-check", "version": "1.0.0", "private": true, "type": "module" }\n' > package.json
npm install --offline --no-audit --no-fund --silent "$TARBALL"
INSTALLED="$(find node_modules -name package.json -not -path '*/node_modules/*/node_modules/*' | wc -l)"
[[ "$INSTALLED" -eq 1 ]] || { say "FAIL: $INSTALLED packages installed, expected only @regrid/client"; exit 1; }
say "installed: $(node -p 'require("@regrid/client/package.json").name + "@" + require("@regrid/client/package.json").version') and nothing else"

# 3. Its declarations type a consumer on their own (DOM library, no @types/node, no server).
cp "$ROOT/scripts/client-pack/types.ts" "$ROOT/scripts/client-pack/check.mjs" .
cat > tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": ["ES2022", "DOM", "DOM.Iterable"],
    "types": [],
    "strict": true,
    "skipLibCheck": false,
    "noEmit": true
  },
  "files": ["types.ts"]
}
EOF
"$ROOT/node_modules/.bin/tsc" -p .
say "a TypeScript consumer compiles against the packed .d.ts files"

# 4. A fresh keyspace, then the service on a free port.
cd "$ROOT"
CONTACT="${CASSANDRA_CONTACT_POINTS:-127.0.0.1}"
if node --input-type=module -e "
  import cassandra from 'cassandra-driver';
  const c = new cassandra.Client({ contactPoints: '$CONTACT'.split(','), protocolOptions: { port: +(process.env.CASSANDRA_PORT ?? 9042) }, localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1' });
  await c.connect();
  await c.execute('DROP KEYSPACE IF EXISTS $KEYSPACE');
  await c.shutdown();
" 2>"$WORK/drop.log"; then
  say "keyspace $KEYSPACE dropped (the service creates and migrates it afresh)"
else
  say "could not drop $KEYSPACE ($(tail -n 1 "$WORK/drop.log")): the service will start over what is there"
fi
PORT="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
# node --import tsx rather than the tsx CLI: one process, so its PID is the service's.
# REDIS_URL=none: the keyspace was just recreated, so its grid versions start again at 1 while a
# shared Redis still holds the last run's pages of the demo profile under those same versions
# (a run once read them back); this check is about the client, not the cache.
env -u AUTH_JWT_SECRET -u NODE_ENV PORT="$PORT" HOST=127.0.0.1 CASSANDRA_KEYSPACE="$KEYSPACE" \
  REDIS_URL=none node --import tsx tools/dev-start.ts >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
URL="http://127.0.0.1:$PORT"
for i in $(seq 600); do
  kill -0 "$SERVER_PID" 2>/dev/null || { say "FAIL: the service exited"; exit 1; }
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz" || true)" == 200 ]] && break
  [[ $i -eq 600 ]] && { say "FAIL: $URL/readyz not 200 after 300 s"; exit 1; }
  sleep 0.5
done
say "service ready at $URL (PID $SERVER_PID, keyspace $KEYSPACE)"

# 5. Plain Node, plain ESM, the installed package.
cd "$APP"
REGRID_URL="$URL" node check.mjs
