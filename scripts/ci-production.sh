#!/usr/bin/env bash
# The production install, checked as issue #24's "Done when" states it, in a throwaway clone under
# /tmp (the committed HEAD of this checkout): `npm ci && npm run build && rm -rf node_modules &&
# npm ci --omit=dev` succeeds and leaves no tsx, vite, typescript or test packages; then
# `NODE_ENV=production node dist/main.js`
#  - without contact points, and again without the secret, exits non-zero at once naming the
#    variable, and provisions nothing (REGRID_HOME stays absent);
#  - on an unmigrated keyspace exits non-zero saying to migrate;
#  - after `node dist/cli.js migrate`: /readyz 200, /dev/token 404, a move works, /metrics has
#    this version in regrid_build_info;
# and last the Dockerfile's runtime stage replayed from that build (scripts/check-containers.sh).
# Needs the Cassandra at CASSANDRA_CONTACT_POINTS (default 127.0.0.1, port CASSANDRA_PORT) and
# Redis at REDIS_URL (default redis://127.0.0.1:6379). Uses a fresh keyspace and drops it; stops
# the servers it started by their PIDs. Every step is bounded by `timeout`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CP="${CASSANDRA_CONTACT_POINTS:-127.0.0.1}"
CPORT="${CASSANDRA_PORT:-9042}"
REDIS="${REDIS_URL:-redis://127.0.0.1:6379}"
# A port nothing listens on now (a stale server on a fixed port would answer in our place).
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
PORT="${CHECK_PORT:-$(free_port)}"
KS="regrid_ci_prod_$(date +%s)_$$"
SECRET="ci-production-secret-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
WORK="$(mktemp -d /tmp/regrid-prod.XXXXXX)"
APP="$WORK/regrid"
SERVER=""
START=$(date +%s)
say() { echo "[production $(($(date +%s) - START))s] $*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

cleanup() {
  local rc=$?
  if [[ -n "$SERVER" ]] && kill -0 "$SERVER" 2>/dev/null; then
    kill "$SERVER"
    for _ in $(seq 50); do kill -0 "$SERVER" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$SERVER" 2>/dev/null || true
  fi
  [[ $rc -ne 0 && -f "$WORK/server.log" ]] && { echo "--- server log"; tail -n 30 "$WORK/server.log"; }
  if [[ -f "$APP/dist/main.js" ]]; then
    (cd "$APP" && timeout 60 node --input-type=module -e "
      import driver from 'cassandra-driver';
      const c = new driver.Client({ contactPoints: ['$CP'], protocolOptions: { port: $CPORT },
        localDataCenter: '${CASSANDRA_LOCAL_DC:-datacenter1}', socketOptions: { readTimeout: 30000 } });
      await c.execute('DROP KEYSPACE IF EXISTS $KS').catch((e) => console.error('drop:', e.message));
      await c.shutdown();") || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT

say "clone of $(git -C "$ROOT" rev-parse --short HEAD) into $APP"
git clone -q "$ROOT" "$APP"
cd "$APP"
say "npm ci"
timeout 900 npm ci --no-audit --no-fund --prefer-offline >"$WORK/npm-ci.log" 2>&1 || { tail -30 "$WORK/npm-ci.log"; fail "npm ci"; }
say "npm run build"
timeout 600 npm run build || fail "npm run build"
[[ -f dist/main.js && -f dist/cli.js && -f dist/index.js && -f dist/index.d.ts && -f web/dist/index.html ]] ||
  fail "the build lacks dist/main.js, dist/cli.js, dist/index.{js,d.ts} or web/dist/index.html"
say "rm -rf node_modules && npm ci --omit=dev"
rm -rf node_modules
timeout 600 npm ci --omit=dev --no-audit --no-fund --prefer-offline >"$WORK/npm-ci-prod.log" 2>&1 || { tail -30 "$WORK/npm-ci-prod.log"; fail "npm ci --omit=dev"; }
for dev in tsx vite typescript vitest @types/node pg undici fast-check prettier; do
  [[ ! -e "node_modules/$dev" ]] || fail "the production install has $dev"
done
# The package's export map resolves to the build (a package may import itself by its name).
node --input-type=module -e "import { createRegrid } from '@regrid/server';
  if (typeof createRegrid !== 'function') process.exit(1);" || fail "import { createRegrid } from '@regrid/server'"
say "production install: $(npm ls --all --parseable 2>/dev/null | tail -n +2 | wc -l) packages, $(du -sh node_modules | cut -f1) (du -sh node_modules)"
say "the CLI offline on this install (scripts/ci-cli-offline.sh): --help, --version, a dead port"
"$ROOT/scripts/ci-cli-offline.sh" "$APP/dist/cli.js" || fail "the CLI offline"

# A production process with only what the test gives it (env -i: nothing inherited).
prod() { env -i PATH="$PATH" HOME="$WORK" NODE_ENV=production REGRID_HOME="$WORK/home" \
  HOST=127.0.0.1 PORT="$PORT" CASSANDRA_PORT="$CPORT" CASSANDRA_KEYSPACE="$KS" "$@"; }
expect_refusal() { # expect_refusal WHAT PATTERN ENV...
  local what=$1 pattern=$2 out rc t0=$SECONDS
  shift 2
  set +e
  out="$(prod "$@" timeout 60 node dist/main.js 2>&1)"
  rc=$?
  set -e
  [[ $rc -ne 0 && $rc -ne 124 ]] || fail "$what: exit code $rc (want a non-zero exit, not a timeout)"
  [[ "$out" =~ $pattern ]] || fail "$what: the output does not match /$pattern/: $out"
  [[ ! -e "$WORK/home" ]] || fail "$what: something was provisioned under REGRID_HOME"
  say "$what: exit $rc after $((SECONDS - t0)) s: $(echo "$out" | tail -n 1 | cut -c1-150)"
}
expect_refusal "no contact points" 'needs CASSANDRA_CONTACT_POINTS[,:]' REDIS_URL="$REDIS" AUTH_JWT_SECRET="$SECRET"
expect_refusal "no secret" 'needs AUTH_JWT_SECRET:' CASSANDRA_CONTACT_POINTS="$CP" REDIS_URL="$REDIS"
expect_refusal "nothing set" 'needs CASSANDRA_CONTACT_POINTS, REDIS_URL, AUTH_JWT_SECRET:'
SETTINGS=(CASSANDRA_CONTACT_POINTS="$CP" CASSANDRA_LOCAL_DC="${CASSANDRA_LOCAL_DC:-datacenter1}" REDIS_URL="$REDIS" AUTH_JWT_SECRET="$SECRET")
expect_refusal "unmigrated keyspace" "keyspace $KS does not exist: run .regrid migrate." "${SETTINGS[@]}"

say "node dist/cli.js migrate (keyspace $KS)"
prod "${SETTINGS[@]}" timeout 300 node dist/cli.js migrate || fail "migrate"
# exec: $! is the server itself, so the cleanup's kill reaches it.
(exec env -i PATH="$PATH" HOME="$WORK" NODE_ENV=production REGRID_HOME="$WORK/home" HOST=127.0.0.1 \
  PORT="$PORT" CASSANDRA_PORT="$CPORT" CASSANDRA_KEYSPACE="$KS" "${SETTINGS[@]}" \
  node dist/main.js) >"$WORK/server.log" 2>&1 &
SERVER=$!
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 120); do
  curl -sf "$BASE/readyz" >/dev/null 2>&1 && break
  kill -0 "$SERVER" 2>/dev/null || fail "the server exited"
  sleep 0.5
done
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
kill -0 "$SERVER" 2>/dev/null || fail "the server exited"
[[ "$(code "$BASE/readyz")" == 200 ]] || fail "/readyz is not 200"
[[ "$(code -X POST "$BASE/dev/token")" == 404 ]] || fail "/dev/token is not 404"
say "/readyz 200, /dev/token 404"

# A profile's token, signed as any issuer would (the service only checks it).
TOKEN="$(node --input-type=module -e "
  import { issueToken } from './dist/http/auth.js';
  console.log(await issueToken('$SECRET', 1000000000000000000n + BigInt($$), 600));")"
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
PROFILE="$(node -e "console.log(String(1000000000000000000n + BigInt($$)))")"
[[ "$(curl -sf "$BASE/v1/profiles/$PROFILE/grid" | field '.items.map(i=>i.id).join()')" == "$B,$A" ]] || fail "the new grid is not newest first"
api POST /v1/me/grid/moves "{\"post_id\":\"$A\",\"after\":null}" >/dev/null
[[ "$(curl -sf "$BASE/v1/profiles/$PROFILE/grid" | field '.items.map(i=>i.id).join()')" == "$A,$B" ]] || fail "the move did not reorder the grid"
say "a move works (post $A to the top)"
VERSION="$(node -p 'require("./package.json").version')"
# Into a file first: `grep -q` closing the pipe early would fail curl under pipefail.
curl -sf "$BASE/metrics" >"$WORK/metrics.txt" || fail "/metrics"
grep -q "^regrid_build_info{.*version=\"$VERSION\"" "$WORK/metrics.txt" || fail "/metrics has no regrid_build_info with version $VERSION"
say "/metrics: regrid_build_info version=\"$VERSION\""
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""

say "the Dockerfile's runtime stage, replayed from this build"
CASSANDRA_CONTACT_POINTS="$CP" CASSANDRA_PORT="$CPORT" REDIS_URL="$REDIS" AUTH_JWT_SECRET="$SECRET" \
  CASSANDRA_KEYSPACE="$KS" CHECK_PORT="$(free_port)" timeout 900 "$APP/scripts/check-containers.sh" "$APP"
say "passed"
