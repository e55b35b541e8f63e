#!/usr/bin/env bash
# Makes Debian's `redis-sentinel` available for the Sentinel failover test
# (test/integration/cache/redis-sentinel.test.ts): nothing to do when it is on PATH; as root (CI),
# installs the package; otherwise says so and exits 0, and the test then fails with the reason
# (it never skips silently).
set -euo pipefail

if command -v redis-sentinel >/dev/null 2>&1; then
  echo "redis-sentinel: $(redis-sentinel --version 2>/dev/null | head -1)"
  exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
  echo "redis-sentinel: missing and not root, skipping install (apt-get install redis-sentinel provides it)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "redis-sentinel: missing and no apt-get, skipping install"
  exit 0
fi
echo "redis-sentinel: installing Debian's redis-sentinel package"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-sentinel >/dev/null
echo "redis-sentinel: $(redis-sentinel --version 2>/dev/null | head -1)"
