#!/usr/bin/env bash
# The CLI offline (issue 24's Done-when): `regrid --help` and `--version` with every store
# unreachable answer at once, exit 0, list every command and print package.json's version, and
# nothing is provisioned. Runs the build (dist/cli.js, or the cli.js given: scripts/ci-production.sh
# passes its production install's) when it exists, else the development CLI (tools/cli.ts) through
# tsx (and says so). In an install without devDependencies it also checks that the development
# commands say so.
# Usage: scripts/ci-cli-offline.sh [path/to/dist/cli.js]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLI="${1:-dist/cli.js}"
if [[ -f "$CLI" ]]; then
  CLI="$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")"
  PKG="$(dirname "$CLI")/../package.json"
  RUN=(node "$CLI")
else
  PKG=package.json
  echo "ci-cli-offline: $CLI is absent (no build yet): running tools/cli.ts through tsx instead"
  RUN=(node --import tsx tools/cli.ts)
fi
# Unreachable stores; a private, empty REGRID_HOME so any provisioning attempt would show there.
HOME_DIR="$(mktemp -d)"
trap 'rm -rf "$HOME_DIR"' EXIT
export CASSANDRA_CONTACT_POINTS=127.0.0.1 CASSANDRA_PORT=1 REDIS_URL=redis://127.0.0.1:1
export REGRID_HOME="$HOME_DIR"

fail() { echo "ci-cli-offline: FAIL: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }

t0=$(now_ms)
help="$("${RUN[@]}" --help)" || fail "--help exited $?"
t1=$(now_ms)
version="$("${RUN[@]}" --version)" || fail "--version exited $?"
t2=$(now_ms)

for cmd in serve migrate audit takedown flags seed cassandra loadtest; do
  grep -qE "^  $cmd " <<<"$help" || fail "--help does not list '$cmd'"
done
grep -q '0 ok, 1 findings, 2 usage, 3 unavailable' <<<"$help" || fail "--help lacks the exit codes"
want="regrid $(node -p "require(process.argv[1]).version" "$(cd "$(dirname "$PKG")" && pwd)/package.json")"
[[ "$version" == "$want" ]] || fail "--version printed '$version', expected '$want'"
for cmd in migrate cassandra loadtest; do
  "${RUN[@]}" "$cmd" --help >/dev/null || fail "$cmd --help exited $?"
done
set +e
"${RUN[@]}" migrate --status >/dev/null 2>"$HOME_DIR/err"
rc=$?
set -e
[[ $rc -eq 3 ]] || fail "migrate against a dead port exited $rc, expected 3 (unavailable)"
[[ $(wc -l <"$HOME_DIR/err") -eq 1 ]] || fail "migrate against a dead port printed more than one line: $(cat "$HOME_DIR/err")"
[[ -z "$(ls -A "$HOME_DIR" | grep -v '^err$')" ]] || fail "something was provisioned under REGRID_HOME"

# A production install (no tsx next to the CLI): the development commands are marked and refuse
# in words, exit 3.
if ! (cd "$(dirname "$PKG")" && node -e "require.resolve('tsx/package.json')" 2>/dev/null); then
  grep -q 'not available in this install' <<<"$help" || fail "--help does not mark the development commands"
  set +e
  out="$("${RUN[@]}" cassandra status 2>&1)"
  rc=$?
  set -e
  [[ $rc -eq 3 && "$out" == *"needs a development checkout"* ]] ||
    fail "cassandra status in a production install: exit $rc, '$out'"
  echo "ci-cli-offline: production install: development commands marked; cassandra status: $out"
fi

echo "ci-cli-offline: ok (${RUN[*]}): --help $((t1 - t0)) ms, --version $((t2 - t1)) ms, a dead port is exit 3 in one line: $(cat "$HOME_DIR/err")"
