#!/usr/bin/env bash
# Tests the JavaScript kit: its unit tests (node --test), then as a team gets it: `npm install <this folder>` in an
# empty project (offline: the kit has no dependencies), `require('session-conformance-kit')` there, and the
# JavaScript example under `session-conformance doctor` with the installed copy (npm --install-links: a real copy,
# so a file missing from package.json's "files" fails here).
#
#   kits/javascript/test.sh                       # SESSION_CONFORMANCE=path/to/binary for the doctor step
#
# Needs node 18+ and npm. The axios tests and the doctor step need Debian's node-axios (NODE_PATH=/usr/share/nodejs)
# and a built session-conformance; without them they are skipped, unless SESSION_CONFORMANCE_REQUIRE_TOOLS=1.
# Exits 0 when everything passed, 1 otherwise.
set -uo pipefail
kit=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$kit/../.." && pwd)
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
failed=0
fail() { echo "kit test: FAIL: $*" >&2; failed=1; }

echo "kit test: node --test"
(cd "$kit" && node --test test/*.test.js) || fail "node --test"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm_quiet=(--offline --no-audit --no-fund --loglevel=error)

echo "kit test: npm install $kit (into an empty project)"
mkdir -p "$work/linked" "$work/copied"
if (cd "$work/linked" && npm init -y >/dev/null && npm install "${npm_quiet[@]}" "$kit" >/dev/null); then
    (cd "$work/linked" && node -e "
        const kit = require('session-conformance-kit');
        if (typeof kit.runAdapter !== 'function' || kit.PROTOCOL !== 1) process.exit(1);
        if (require('session-conformance-kit/package.json').version.split('.')[0] !== String(kit.PROTOCOL)) process.exit(1);
    ") || fail "require('session-conformance-kit') in a project that installed it"
else
    fail "npm install of the kit's folder"
fi

echo "kit test: npm install --install-links $kit (a real copy)"
if (cd "$work/copied" && npm init -y >/dev/null && npm install "${npm_quiet[@]}" --install-links "$kit" >/dev/null); then
    installed="$work/copied/node_modules/session-conformance-kit"
    [ -d "$installed" ] && [ ! -L "$installed" ] || fail "--install-links did not copy the kit"
    resolved=$(cd "$work/copied" && node -p "require.resolve('session-conformance-kit')")
    case "$resolved" in "$installed"/*) ;; *) fail "the kit resolved to $resolved, not the installed copy" ;; esac
    binary=${SESSION_CONFORMANCE:-$root/.build/release/session-conformance}
    [ -x "$binary" ] || binary=$root/.build/debug/session-conformance
    if [ -x "$binary" ] && node -e "require('axios')" 2>/dev/null; then
        echo "kit test: doctor on the example with the installed kit"
        # NODE_PATH puts the installed copy first: the example requires 'session-conformance-kit' before the checkout's.
        adapter="NODE_PATH=$work/copied/node_modules:$NODE_PATH node $root/Examples/adapters/javascript/adapter.js"
        (cd "$root" && "$binary" doctor --world json-v1 --timeout 60 --adapter "$adapter") > "$work/doctor.txt" 2>&1 \
            || { cat "$work/doctor.txt"; fail "doctor on the example with the installed kit"; }
        tail -n 1 "$work/doctor.txt"
        grep -q "doctor: 0 problems" "$work/doctor.txt" || fail "doctor found problems"
    elif [ "${SESSION_CONFORMANCE_REQUIRE_TOOLS:-}" = 1 ]; then
        fail "the doctor step needs session-conformance ($binary) and node-axios"
    else
        echo "kit test: skipped doctor (no session-conformance binary or no axios)"
    fi
else
    fail "npm install --install-links of the kit's folder"
fi

[ $failed = 0 ] && echo "kit test: all passed"
exit $failed
