#!/usr/bin/env bash
# Makes Debian's `chromium` available at /usr/bin/chromium for the browser tests (playwright-core
# drives it; Playwright's own browser downloads are not used, the network here cannot reach them):
# nothing to do when it is there; as root (CI), installs the package; otherwise says so and exits
# 0, and `npm run test:browser` then fails with the reason (a browser test never skips silently).
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [[ -x "$CHROMIUM" ]]; then
  echo "chromium: $("$CHROMIUM" --version 2>/dev/null | head -1)"
  exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
  echo "chromium: $CHROMIUM missing and not root, skipping install (apt-get install chromium provides it)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium: $CHROMIUM missing and no apt-get, skipping install"
  exit 0
fi
echo "chromium: installing Debian's chromium package"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "chromium: $("$CHROMIUM" --version 2>/dev/null | head -1)"
