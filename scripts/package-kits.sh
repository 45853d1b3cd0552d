#!/usr/bin/env bash
# Builds the adapter kits' packages, as the release ships them beside the archives (docs/ci.md, Releases):
#   session_conformance_kit-<v>-py3-none-any.whl   the Python kit (pip install it)
#   session-conformance-kit-<v>.tgz                the JavaScript kit (npm install it; npm pack, no registry)
#   session-conformance-kit-<v>.jar                the JVM kit (javac and jar alone)
#   session-conformance-kit-okhttp-<v>.jar         its OkHttp interceptors (when OkHttp's jar is found)
# Usage: scripts/package-kits.sh [output-directory]   (default: .build/dist); prints each package's path.
# Needs python3 with pip (PyPI for setuptools), npm, and a JDK 17.
set -euo pipefail
cd "$(dirname "$0")/.."
out_dir="${1:-.build/dist}"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A copy, so that the build leaves nothing (build/, *.egg-info) in the checkout.
cp -R kits/python "$work/python"
python3 -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$out_dir" "$work/python" >&2
(cd kits/javascript && npm pack --silent --pack-destination "$out_dir" >/dev/null)
core="$(bash kits/jvm/build.sh)"
cp "$core" "$out_dir/"
okhttp="$(dirname "$core")/$(basename "$core" | sed 's/^session-conformance-kit-/session-conformance-kit-okhttp-/')"
[ -f "$okhttp" ] && cp "$okhttp" "$out_dir/"
ls -1 "$out_dir"/session_conformance_kit-*.whl "$out_dir"/session-conformance-kit-*.tgz "$out_dir"/session-conformance-kit-*.jar
