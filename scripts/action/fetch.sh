#!/usr/bin/env bash
# The GitHub Action's first step (action.yml): puts session-conformance on PATH.
# Downloads the release archive session-conformance-<version>-linux-<arch>.tar.gz from the action's own
# repository; when there is none (an untagged version, a fork), builds the action's checkout instead
# (action.yml caches that build).
# Inputs (environment): VERSION (empty: the version in the action's sources), REPOSITORY (owner/name),
# ACTION_PATH (the action's checkout), RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT.
set -euo pipefail

version="${VERSION:-}"
if [ -z "$version" ]; then
    version="$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$ACTION_PATH/Sources/SessionConformanceCommands/Commands/SessionConformance.swift")"
fi
version="${version#v}"
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
name="session-conformance-$version-$os-$(uname -m)"
url="https://github.com/$REPOSITORY/releases/download/v$version/$name.tar.gz"
install_dir="$RUNNER_TEMP/session-conformance"
mkdir -p "$install_dir"

if curl --fail --silent --show-error --location --output "$RUNNER_TEMP/$name.tar.gz" "$url"; then
    tar -xzf "$RUNNER_TEMP/$name.tar.gz" -C "$install_dir" --strip-components=1
    echo "fetch: release archive $name"
else
    echo "fetch: no release archive at $url; building the action's sources"
    command -v swift >/dev/null || { echo "fetch: no Swift toolchain to build with (use a swift image, or a released version)" >&2; exit 2; }
    if ! pkg-config --exists yaml-0.1 2>/dev/null; then
        sudo=""; [ "$(id -u)" != 0 ] && sudo="sudo"
        $sudo apt-get update -qq && $sudo apt-get install -y -qq libyaml-dev pkg-config
    fi
    bash "$ACTION_PATH/scripts/package.sh" "$RUNNER_TEMP/dist" >/dev/null
    tar -xzf "$RUNNER_TEMP/dist/$name.tar.gz" -C "$install_dir" --strip-components=1
fi
echo "$install_dir" >> "$GITHUB_PATH"
echo "path=$install_dir" >> "$GITHUB_OUTPUT"
