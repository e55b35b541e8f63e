#!/usr/bin/env bash
# Both packages as the registry would carry them, from a clean checkout, and the embedding guide
# in a host project that installed them: in a throwaway clone (under /tmp) of this checkout's
# committed HEAD,
#  1. `npm ci`, then `npm pack` at the root (its prepack builds) and in client/ (its prepack
#     builds with the root's tsc): each tarball holds its build and declarations, no sources;
#  2. the production install (`rm -rf node_modules && npm ci --omit=dev`) keeps the peer
#     dependencies (hono, ioredis, cassandra-driver), and beside it `cd client && npm ci &&
#     npm pack` builds the client afresh (client/dist deleted first) with its own tsc;
#  3. a host project installs the server tarball with its peers at the newest majors, ioredis 6
#     (REGRID_PACK_IOREDIS, default ^6.1.0), migrates a fresh keyspace with the packed CLI, takes
#     docs/embedding.md's example verbatim (the placeholders replaced, as
#     test/integration/embed-guide.test.ts does), type-checks and compiles it with tsc against
#     the packed declarations and that ioredis, runs it, and over HTTP creates two posts, moves
#     one and reads the page, then sends SIGTERM and sees /readyz answer 503 while it drains.
# Needs the registry (the host project installs its packages; --prefer-offline) and the stores:
# Cassandra at CASSANDRA_CONTACT_POINTS (default 127.0.0.1) port CASSANDRA_PORT, Redis at
# REDIS_URL (default redis://127.0.0.1:6379). The keyspace (EMBED_PACK_KEYSPACE, default
# regrid_ci_embed_pack) is dropped afterwards; the host process is stopped by its PID.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CP="${CASSANDRA_CONTACT_POINTS:-127.0.0.1}"
CPORT="${CASSANDRA_PORT:-9042}"
DC="${CASSANDRA_LOCAL_DC:-datacenter1}"
REDIS="${REDIS_URL:-redis://127.0.0.1:6379}"
KS="${EMBED_PACK_KEYSPACE:-regrid_ci_embed_pack}"
IOREDIS="${REGRID_PACK_IOREDIS:-^6.1.0}"
WORK="$(mktemp -d /tmp/regrid-embed-pack.XXXXXX)"
REPO="$WORK/repo"
HOSTAPP="$WORK/host"
HOST_PID=""
START=$(date +%s)
say() { echo "[embed-pack $(($(date +%s) - START))s] $*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

cleanup() {
  local rc=$?
  if [[ -n "$HOST_PID" ]] && kill -0 "$HOST_PID" 2>/dev/null; then
    kill -KILL "$HOST_PID" 2>/dev/null || true
  fi
  if [[ $rc -ne 0 && -f "$WORK/host.log" ]]; then echo "--- host log"; tail -n 30 "$WORK/host.log"; fi
  if [[ -d "$HOSTAPP/node_modules/cassandra-driver" ]]; then
    (cd "$HOSTAPP" && timeout 60 node --input-type=module -e "
      import driver from 'cassandra-driver';
      const c = new driver.Client({ contactPoints: ['$CP:$CPORT'], localDataCenter: '$DC',
        socketOptions: { readTimeout: 30000 } });
      await c.execute('DROP KEYSPACE IF EXISTS $KS').catch((e) => console.error('drop:', e.message));
      await c.shutdown();") || true
  fi
  if [[ "${REGRID_CI_KEEP_PACK:-0}" == 1 ]]; then say "kept $WORK"; else rm -rf "$WORK"; fi
  exit $rc
}
trap cleanup EXIT

# --- 1. A clean checkout packs both packages.
say "clone of $(git -C "$ROOT" rev-parse --short HEAD)"
git clone -q "$ROOT" "$REPO"
cd "$REPO"
timeout 900 npm ci --no-audit --no-fund --prefer-offline >"$WORK/npm-ci.log" 2>&1 || { tail -30 "$WORK/npm-ci.log"; fail "npm ci"; }
SERVER_TGZ="$WORK/$(npm pack --silent --pack-destination "$WORK" 2>"$WORK/pack.log" | tail -n 1)" || { tail -30 "$WORK/pack.log"; fail "npm pack (server)"; }
LISTING="$(tar -tzf "$SERVER_TGZ")"
for f in package/package.json package/dist/index.js package/dist/index.d.ts package/dist/main.js \
  package/dist/cli.js package/bin/regrid.mjs package/cql/001_core.cql package/web/dist/index.html; do
  grep -qx "$f" <<<"$LISTING" || fail "$f is not in $(basename "$SERVER_TGZ")"
done
grep -q '^package/src/' <<<"$LISTING" && fail "the server tarball carries src/"
say "packed $(basename "$SERVER_TGZ") ($(du -k "$SERVER_TGZ" | cut -f1) KB, $(wc -l <<<"$LISTING") files)"
rm -rf client/dist
CLIENT_TGZ="$WORK/$(cd client && npm pack --silent --pack-destination "$WORK" | tail -n 1)" || fail "npm pack (client)"
# A here-string, not a pipe: grep -q closing early would fail tar under pipefail.
grep -qx package/dist/index.d.ts <<<"$(tar -tzf "$CLIENT_TGZ")" || fail "the client tarball has no dist/index.d.ts"
say "packed $(basename "$CLIENT_TGZ") with the root's tsc"

# --- 2. The production install keeps the peers; the client packs beside it.
rm -rf node_modules && (cd client && rm -rf node_modules dist)
timeout 600 npm ci --omit=dev --no-audit --no-fund --prefer-offline >"$WORK/npm-ci-prod.log" 2>&1 || { tail -30 "$WORK/npm-ci-prod.log"; fail "npm ci --omit=dev"; }
for peer in hono ioredis cassandra-driver; do
  [[ -f "node_modules/$peer/package.json" ]] || fail "the production install lacks $peer"
done
[[ ! -e node_modules/typescript ]] || fail "the production install has typescript"
mkdir -p "$WORK/client-after-prod"
(cd client && timeout 600 npm ci --no-audit --no-fund --prefer-offline >"$WORK/npm-ci-client.log" 2>&1 &&
  npm pack --silent --pack-destination "$WORK/client-after-prod" >/dev/null 2>"$WORK/pack-client.log") ||
  { tail -n 30 "$WORK/npm-ci-client.log" "$WORK/pack-client.log" 2>/dev/null || true; fail "cd client && npm ci && npm pack after the production install"; }
say "after npm ci --omit=dev: hono, ioredis, cassandra-driver installed; cd client && npm ci && npm pack built the client"

# --- 3. A host project: the server tarball, its peers (ioredis $IOREDIS), the guide's example.
mkdir -p "$HOSTAPP"
cd "$HOSTAPP"
printf '{ "name": "embed-host", "version": "1.0.0", "private": true, "type": "module" }\n' >package.json
timeout 900 npm install --no-audit --no-fund --prefer-offline "$SERVER_TGZ" "ioredis@$IOREDIS" \
  'hono@^4.13.19' '@hono/node-server@^1.19.0' 'cassandra-driver@^4.10.0' typescript@5.9.3 \
  '@types/node@^20.19.0' >"$WORK/npm-host.log" 2>&1 || { tail -30 "$WORK/npm-host.log"; fail "the host's npm install"; }
IOREDIS_VERSION="$(node -p 'require("ioredis/package.json").version')"
[[ "$(find node_modules -path '*/ioredis/package.json' | wc -l)" -eq 1 ]] || fail "more than one ioredis in the host's tree"
say "host installed @regrid/server with ioredis $IOREDIS_VERSION (one copy)"

PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
GUIDE="$REPO/docs/embedding.md" CP="$CP:$CPORT" DC="$DC" KS="$KS" REDIS="$REDIS" PORT="$PORT" node --input-type=module -e "
  import { readFileSync, writeFileSync } from 'node:fs';
  const md = readFileSync(process.env.GUIDE, 'utf8');
  const blocks = [...md.matchAll(/^\`\`\`ts\n([\s\S]*?)^\`\`\`$/gm)].map((m) => m[1]).filter((b) => b.includes('createRegrid('));
  if (blocks.length !== 1) throw new Error(blocks.length + ' examples');
  let code = blocks[0];
  for (const [from, to] of [
    [\"'10.0.0.1:9042'\", \"'\" + process.env.CP + \"'\"],
    [\"'dc1'\", \"'\" + process.env.DC + \"'\"],
    [\"const keyspace = 'regrid'\", \"const keyspace = '\" + process.env.KS + \"'\"],
    [\"'redis://10.0.0.2:6379/2'\", \"'\" + process.env.REDIS + \"'\"],
    ['port: 8080', 'port: ' + process.env.PORT],
  ]) {
    if (code.split(from).length !== 2) throw new Error(from + ' does not occur once');
    code = code.replace(from, () => to);
  }
  writeFileSync('host.ts', code);"
cat >tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "types": ["node"],
    "strict": true,
    "skipLibCheck": true,
    "outDir": "out"
  },
  "files": ["host.ts"]
}
EOF
node_modules/.bin/tsc -p . || fail "the guide's example does not type-check against the packed declarations and ioredis $IOREDIS_VERSION"
say "the guide's example type-checks (tsc, strict) against @regrid/server's .d.ts and ioredis $IOREDIS_VERSION"

env -i PATH="$PATH" HOME="$WORK" CASSANDRA_CONTACT_POINTS="$CP" CASSANDRA_PORT="$CPORT" \
  CASSANDRA_LOCAL_DC="$DC" CASSANDRA_KEYSPACE="$KS" \
  timeout 300 node node_modules/@regrid/server/bin/regrid.mjs migrate >"$WORK/migrate.log" 2>&1 ||
  { tail -20 "$WORK/migrate.log"; fail "regrid migrate from the package"; }
say "keyspace $KS migrated by the packed CLI"

SECRET="embed-pack-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
(exec env JWT_SECRET="$SECRET" node out/host.js) >"$WORK/host.log" 2>&1 &
HOST_PID=$!
BASE="http://127.0.0.1:$PORT/regrid"
for i in $(seq 240); do
  kill -0 "$HOST_PID" 2>/dev/null || fail "the host exited"
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz" || true)" == 200 ]] && break
  [[ $i -eq 240 ]] && fail "$BASE/readyz not 200 in 120 s"
  sleep 0.5
done
PROFILE="$((RANDOM * 32768 + RANDOM + 1000000))"
TOKEN="$(SECRET="$SECRET" PROFILE="$PROFILE" node -e '
  const { createHmac } = require("node:crypto");
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const head = b64({ alg: "HS256", typ: "JWT" }) + "." + b64({ sub: process.env.PROFILE, iat: now, exp: now + 600 });
  console.log(head + "." + createHmac("sha256", process.env.SECRET).update(head).digest("base64url"));')"
api() { # api METHOD PATH [BODY]: the body of a 2xx answer, else fails showing the answer
  local out
  out="$(curl -s -w '\n%{http_code}' -X "$1" -H "authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' "$BASE$2" ${3:+-d "$3"})"
  [[ "${out##*$'\n'}" == 2?? ]] || fail "$1 $2 answered ${out##*$'\n'}: ${out%$'\n'*}"
  echo "${out%$'\n'*}"
}
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(eval("JSON.parse(s)"+process.argv[1])))' "$1"; }
A="$(api POST /v1/me/posts '{"caption":"a"}' | field .post.id)"
B="$(api POST /v1/me/posts '{"caption":"b"}' | field .post.id)"
api POST /v1/me/grid/moves "{\"post_id\":\"$A\",\"after\":null}" >/dev/null
ORDER="$(api GET "/v1/profiles/$PROFILE/grid" | field '.items.map(i=>i.id).join()')"
[[ "$ORDER" == "$A,$B" ]] || fail "the page after the move is $ORDER, want $A,$B"
CHECKS="$(api GET /readyz | field '.checks')"
say "created $A and $B, moved $A to the top, the page reads $ORDER; /readyz checks $CHECKS"
[[ "$(api GET /openapi.json | field '.servers[0].url')" == /regrid ]] || fail "the document's servers is not /regrid"

kill -TERM "$HOST_PID"
for _ in $(seq 40); do
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz" || true)" == 503 ]] && break
  sleep 0.05
done
[[ "$(curl -s "$BASE/readyz" | field .status)" == draining ]] || fail "/readyz does not answer draining after SIGTERM"
wait "$HOST_PID" || fail "the host exited with $? after its drain"
HOST_PID=""
say "SIGTERM: /readyz 503 draining, then the host exited 0; passed"
