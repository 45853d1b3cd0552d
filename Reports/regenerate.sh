#!/usr/bin/env bash
# Regenerates the committed reports of the reference implementation (SessionKit, in-process, seed 1) in
# every format. Run it from anywhere after changing Specs/ or the reference; the test
# ConformanceReportsTests/ReferenceReportsTests fails while these files are stale.
#
#     Reports/regenerate.sh
#
# Extra arguments for 'swift build' (for example a scratch path) can be given in SWIFT_BUILD_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck disable=SC2086
swift build --product session-conformance ${SWIFT_BUILD_ARGS:-}
# shellcheck disable=SC2086
binary="$(swift build --show-bin-path ${SWIFT_BUILD_ARGS:-})/session-conformance"

status=0
# Through PATH, so the reports' reproduce commands say 'session-conformance', not the build folder.
PATH="$(dirname "$binary"):$PATH" session-conformance run \
    --report json=Reports/reference.json \
    --report junit=Reports/reference.junit.xml \
    --report markdown=Reports/reference.md \
    --report html=Reports/reference.html \
    --report tap=Reports/reference.tap \
    > /dev/null || status=$?

if [ "$status" -ne 0 ]; then
    echo "regenerate: the reference did not pass (exit $status); the reports say why" >&2
fi
exit "$status"
