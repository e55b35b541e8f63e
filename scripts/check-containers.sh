#!/usr/bin/env bash
# Checks the container files without Docker (none on this machine), as far as that goes:
#  1. docker-compose.yml against the Compose schema and this project's needs (check-compose.py);
#  2. the Dockerfile's runtime stage replayed in a temp dir: its ENV, its COPY lines (from the
#     build stage: out of BUILT, a tree where `npm run build` has run; from the context: out of
#     this checkout), its RUN lines (npm ci --omit=dev), then its CMD in production mode with no
#     settings, which must exit non-zero naming what is missing;
#  3. with CASSANDRA_CONTACT_POINTS (and REDIS_URL, AUTH_JWT_SECRET, CASSANDRA_KEYSPACE) set in
#     this script's environment: `node dist/cli.js migrate`, then the CMD, then the HEALTHCHECK's
#     own command against it, which must exit 0.
# Not run here: `docker build` itself (the base image, the build stage in a container, layer
# caching, .dockerignore), USER node (the replay runs as the caller), the HEALTHCHECK's timing
# options, and compose's networking and depends_on ordering.
# Usage: scripts/check-containers.sh [BUILT]   (default BUILT: this checkout)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILT="$(cd "${1:-$ROOT}" && pwd)"
say() { echo "[containers] $*"; }

python3 "$ROOT/scripts/check-compose.py"

[[ -f "$BUILT/dist/main.js" && -f "$BUILT/web/dist/index.html" ]] ||
  { say "no build in $BUILT (run npm run build there first)"; exit 1; }
APP="$(mktemp -d /tmp/regrid-runtime.XXXXXX)"
SERVER=""
cleanup() {
  if [[ -n "$SERVER" ]] && kill -0 "$SERVER" 2>/dev/null; then kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$APP"
}
trap cleanup EXIT

# The runtime stage's instructions, continuation lines joined.
mapfile -t STEPS < <(awk '/^FROM .* AS runtime/{on=1; next} /^FROM /{on=0} on' "$ROOT/Dockerfile" |
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | grep -Ev '^\s*(#|$)')
declare -a RUNTIME_ENV=()
CMD_JSON="" HEALTH_JSON=""
for step in "${STEPS[@]}"; do
  read -r op rest <<<"$step"
  case "$op" in
    ENV) for kv in $rest; do RUNTIME_ENV+=("$kv"); done ;;
    WORKDIR | EXPOSE) ;;
    USER) say "not replayed: USER $rest (this replay runs as $(id -un))" ;;
    COPY)
      read -r -a parts <<<"$rest"
      from="$ROOT"
      if [[ "${parts[0]}" == --from=build ]]; then from="$BUILT"; parts=("${parts[@]:1}"); fi
      dst="$APP/${parts[-1]}"
      for src in "${parts[@]:0:${#parts[@]}-1}"; do
        src="$from/${src#/app/}"
        # As COPY does: a directory's contents into the destination; a file into a dir/ or as it.
        if [[ -d "$src" ]]; then mkdir -p "$dst" && cp -R "$src/." "$dst/"
        elif [[ "$dst" == */ ]]; then mkdir -p "$dst" && cp "$src" "$dst"
        else mkdir -p "$(dirname "$dst")" && cp "$src" "$dst"; fi
      done
      say "COPY $rest" ;;
    # A private npm cache: the stage's `npm cache clean --force` must not empty the caller's.
    RUN) say "RUN $rest"; (cd "$APP" && env "${RUNTIME_ENV[@]}" npm_config_cache="$APP/.npm-cache" bash -c "$rest") ;;
    HEALTHCHECK) HEALTH_JSON="${rest#*CMD }" ;;
    CMD) CMD_JSON="$rest" ;;
    *) say "unknown instruction in the runtime stage: $op"; exit 1 ;;
  esac
done
json_argv() { node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$1"; }
mapfile -t CMD < <(json_argv "$CMD_JSON")
mapfile -t HEALTH < <(json_argv "$HEALTH_JSON")

for dev in tsx vite typescript vitest; do
  [[ ! -e "$APP/node_modules/$dev" ]] || { say "runtime node_modules has $dev"; exit 1; }
done
rm -rf "$APP/.npm-cache"
say "runtime stage: $(cd "$APP" && echo *)"
say "node_modules: $(cd "$APP" && npm ls --all --parseable 2>/dev/null | tail -n +2 | wc -l) packages, $(du -sh "$APP/node_modules" | cut -f1)"

# The CMD in production mode with nothing configured: a fast, named refusal.
set +e
out="$(cd "$APP" && timeout 20 env -i PATH="$PATH" HOME="$APP" "${RUNTIME_ENV[@]}" "${CMD[@]}" 2>&1)"
rc=$?
set -e
for name in CASSANDRA_CONTACT_POINTS REDIS_URL AUTH_JWT_SECRET; do
  [[ $rc -ne 0 && "$out" == *"$name"* ]] || { say "CMD without settings: rc=$rc, output: $out"; exit 1; }
done
say "CMD without settings exits $rc naming all three: ${out:0:160}"

if [[ -z "${CASSANDRA_CONTACT_POINTS:-}" ]]; then
  say "CASSANDRA_CONTACT_POINTS unset: the started image and its HEALTHCHECK were not checked"
  exit 0
fi
PORT="${CHECK_PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}"
run_env=(env -i PATH="$PATH" HOME="$APP" "${RUNTIME_ENV[@]}" HOST=127.0.0.1 PORT="$PORT"
  CASSANDRA_CONTACT_POINTS="$CASSANDRA_CONTACT_POINTS" CASSANDRA_PORT="${CASSANDRA_PORT:-9042}"
  CASSANDRA_LOCAL_DC="${CASSANDRA_LOCAL_DC:-datacenter1}" REDIS_URL="${REDIS_URL:-none}"
  AUTH_JWT_SECRET="${AUTH_JWT_SECRET:-container-check-secret-0123456789}"
  CASSANDRA_KEYSPACE="${CASSANDRA_KEYSPACE:-regrid}")
if [[ -f "$APP/dist/cli.js" ]]; then
  (cd "$APP" && timeout 300 "${run_env[@]}" node dist/cli.js migrate)
else
  say "no dist/cli.js in the runtime stage: compose's migrate service would fail"; exit 1
fi
(cd "$APP" && exec "${run_env[@]}" "${CMD[@]}") >"$APP/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 120); do
  kill -0 "$SERVER" 2>/dev/null || { say "server exited:"; cat "$APP/server.log"; exit 1; }
  (cd "$APP" && "${run_env[@]}" "${HEALTH[@]}") && break
  sleep 0.5
done
(cd "$APP" && "${run_env[@]}" "${HEALTH[@]}") || { say "HEALTHCHECK failed"; tail -20 "$APP/server.log"; exit 1; }
say "started from the runtime stage; its HEALTHCHECK command exits 0"
