#!/usr/bin/env bash
# Prints the tool's version, MAJOR.MINOR.PATCH, from its one source: `SessionConformance.version` in
# Sources/SessionConformanceCommands/Commands/SessionConformance.swift (what `--version` prints and reports
# record). scripts/package.sh names the archive with it, the Action downloads it, and the release workflow
# refuses a tag vX.Y.Z that differs from it.
# Usage: scripts/version.sh [checkout]   (default: this script's checkout)
set -eu
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
version="$(sed -n 's/^ *public static let version = "\([0-9][0-9.]*\)".*/\1/p' \
    "$root/Sources/SessionConformanceCommands/Commands/SessionConformance.swift")"
if [ -z "$version" ]; then
    echo "version.sh: no 'public static let version = \"X.Y.Z\"' in $root/Sources/SessionConformanceCommands/Commands/SessionConformance.swift" >&2
    exit 1
fi
echo "$version"
