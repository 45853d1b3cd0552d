#!/usr/bin/env bash
# The GitHub Action's fetch steps (action.yml): put session-conformance on PATH.
#   fetch.sh resolve   writes the outputs version, dir and cache-key (action.yml's cache step keys on them)
#   fetch.sh install   when dir holds no session-conformance (no cache hit): downloads the release archive
#                      session-conformance-<version>-<os>-<arch>.tar.gz, checks its SHA-256 against the
#                      release's SHA256SUMS and unpacks it into dir; or, only with BUILD_FROM_SOURCE=true,
#                      builds the action's checkout with scripts/package.sh. Then adds dir to GITHUB_PATH.
# A download that fails fails the step: it never falls back to a build (minutes per job).
# Inputs (environment): VERSION (empty: the action's ref when it is a vX.Y.Z tag, else the version in the
# action's sources), ACTION_REF (github.action_ref, empty in composite actions on some runners:
# actions/runner#2525), REPOSITORY (owner/name holding the releases; github.action_repository is empty in
# composite actions, so it is an input), BUILD_FROM_SOURCE, ACTION_PATH, RUNNER_OS, RUNNER_ARCH,
# RUNNER_TEMP, RUNNER_TOOL_CACHE (optional), GITHUB_PATH, GITHUB_OUTPUT; SESSION_CONFORMANCE_DOWNLOAD_URL
# (optional) replaces https://github.com/$REPOSITORY/releases/download, for a mirror.
# Runs on the bash 3.2 of macOS runners: no mapfile, no declare -A, no ${var,,}, no empty "${array[@]}".
set -euo pipefail

mode="${1:-}"

fail() {
    # An annotation on the job, and the same words in the log.
    echo "::error title=session-conformance: fetch failed::$1"
    echo "fetch: $1" >&2
    exit 1
}

output() { echo "$1=$2" >> "${GITHUB_OUTPUT:-/dev/null}"; }

# The SHA-256 of standard input, in hex: sha256sum on Linux, shasum on macOS.
sha256() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -d ' ' -f 1; else shasum -a 256 | cut -d ' ' -f 1; fi
}

build_from_source() { [ "${BUILD_FROM_SOURCE:-false}" = true ]; }

# The functions set globals instead of printing: a failure inside $(...) would lose its annotation.
resolve_version() {
    version="${VERSION:-}"
    if [ -z "$version" ] && echo "${ACTION_REF:-}" | grep -Eq '^v[0-9]+\.[0-9]+\.[0-9]+$'; then
        version="$ACTION_REF"
    fi
    if [ -z "$version" ]; then
        version="$(bash "$ACTION_PATH/scripts/version.sh" "$ACTION_PATH")" || fail "no version input, and none in the action's sources"
    fi
    version="${version#v}"
    echo "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$' \
        || fail "version '$version' is not a release version such as 0.1.0"
}

# The archive's platform, as scripts/package.sh names it: linux-x86_64, linux-aarch64, darwin-arm64.
resolve_platform() {
    local runner_os="${RUNNER_OS:-$(uname -s)}" runner_arch="${RUNNER_ARCH:-$(uname -m)}" os arch
    case "$runner_os" in
        Linux | linux) os=linux ;;
        macOS | Darwin) os=darwin ;;
        *) fail "runner OS '$runner_os' is not supported: releases are built for Linux and macOS" ;;
    esac
    case "$runner_arch" in
        X64 | x86_64 | amd64) arch=x86_64 ;;
        ARM64 | aarch64 | arm64) if [ "$os" = darwin ]; then arch=arm64; else arch=aarch64; fi ;;
        *) fail "runner architecture '$runner_arch' is not supported: releases are built for x86_64 and arm64" ;;
    esac
    platform="$os-$arch"
}

# The sources a build from source depends on, as one hash: hashFiles() ignores files outside the
# workspace (actions/toolkit#1035), and the action's checkout is outside it.
source_hash() {
    (cd "$ACTION_PATH" && { ls Package.swift Package.resolved 2>/dev/null; find Sources scripts -type f; } | LC_ALL=C sort \
        | while IFS= read -r file; do echo "$file"; cat "$file"; done) | sha256 | cut -c 1-16
}

resolve_version
resolve_platform
name="session-conformance-$version-$platform"
if build_from_source; then
    dir="${RUNNER_TOOL_CACHE:-$RUNNER_TEMP}/session-conformance/$version-source/$platform"
else
    dir="${RUNNER_TOOL_CACHE:-$RUNNER_TEMP}/session-conformance/$version/$platform"
fi

case "$mode" in
resolve)
    key="session-conformance-$version-$platform"
    build_from_source && key="$key-source-$(source_hash)"
    output version "$version"
    output dir "$dir"
    output cache-key "$key"
    echo "fetch: session-conformance $version for $platform, in $dir"
    exit 0
    ;;
install) ;;
*) echo "usage: fetch.sh resolve|install" >&2; exit 2 ;;
esac

if [ -x "$dir/session-conformance" ]; then
    echo "fetch: session-conformance $version from the cache"
elif build_from_source; then
    echo "fetch: building the action's sources (build-from-source: true)"
    command -v swift >/dev/null 2>&1 || fail "build-from-source needs a Swift toolchain on PATH (a swift container, or setup-swift)"
    if ! pkg-config --exists yaml-0.1 2>/dev/null; then
        case "$platform" in
            darwin-*) brew install libyaml pkg-config ;;
            *) sudo=""; [ "$(id -u)" != 0 ] && sudo="sudo"
               $sudo apt-get update -qq && $sudo apt-get install -y -qq libyaml-dev pkg-config ;;
        esac
    fi
    archive="$(bash "$ACTION_PATH/scripts/package.sh" "$RUNNER_TEMP/session-conformance-dist" | tail -n 1)" \
        || fail "scripts/package.sh failed; see the log above"
    mkdir -p "$dir"
    tar -xzf "$archive" -C "$dir" --strip-components=1
else
    [ -n "${REPOSITORY:-}" ] || fail "the repository input is empty: name the repository whose releases to download (owner/name)"
    base="${SESSION_CONFORMANCE_DOWNLOAD_URL:-https://github.com/$REPOSITORY/releases/download}"
    url="$base/v$version/$name.tar.gz"
    download="$RUNNER_TEMP/$name.tar.gz"
    rm -f "$download"
    curl --fail --silent --show-error --location --retry 3 --output "$download" "$url" \
        || fail "no release archive at $url: name a released version (version:), the repository that has it (repository:), or set build-from-source: true to build the action's sources with a Swift toolchain"
    curl --fail --silent --show-error --location --retry 3 --output "$RUNNER_TEMP/$name.SHA256SUMS" "$base/v$version/SHA256SUMS" \
        || fail "the release v$version has no SHA256SUMS at $base/v$version/SHA256SUMS: its archive cannot be verified"
    expected="$(awk -v file="$name.tar.gz" '$2 == file || $2 == "*" file { print $1 }' "$RUNNER_TEMP/$name.SHA256SUMS")"
    [ -n "$expected" ] || fail "SHA256SUMS of v$version lists no $name.tar.gz"
    actual="$(sha256 < "$download")"
    if [ "$actual" != "$expected" ]; then
        rm -f "$download"
        fail "$name.tar.gz has SHA-256 $actual, but the release's SHA256SUMS says $expected: refused"
    fi
    echo "fetch: $name.tar.gz, SHA-256 $actual as SHA256SUMS says"
    rm -rf "$dir.partial"
    mkdir -p "$dir.partial"
    tar -xzf "$download" -C "$dir.partial" --strip-components=1
    rm -rf "$dir"
    mv "$dir.partial" "$dir"
    rm -f "$download"
fi

"$dir/session-conformance" --version || fail "the session-conformance in $dir does not run on this machine (the Linux archive needs glibc 2.36 or newer)"
echo "$dir" >> "$GITHUB_PATH"
output path "$dir"
