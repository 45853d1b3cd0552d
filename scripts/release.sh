#!/usr/bin/env bash
# The release workflow's steps that need no GitHub (.github/workflows/release.yml); ReleaseFilesTests runs them.
#   release.sh check-tag TAG   fails unless TAG is v<version>, the version scripts/version.sh reads from
#                              SessionConformance.version, and CHANGELOG.md's newest release is that version;
#                              prints the version
#   release.sh notes           prints CHANGELOG.md's newest release entry: the GitHub release's notes
#   release.sh sums DIR        checks each DIR/*.tar.gz against the .sha256 that scripts/package.sh wrote
#                              beside it, then writes DIR/SHA256SUMS, one `<sha256>  <archive>` line each
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "release.sh: $1" >&2; exit 1; }

sha256_check() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }

# The heading of CHANGELOG.md's newest release: the first "### " line of its "## Releases" part.
newest_release_heading() {
    awk '/^## / { releases = ($0 == "## Releases") } releases && /^### / { print; exit }' CHANGELOG.md
}

case "${1:-}" in
check-tag)
    tag="${2:-}"
    version="$(bash scripts/version.sh)"
    [ "$tag" = "v$version" ] || fail "the tag '$tag' is not v$version, the version in SessionConformance.swift: raise SessionConformance.version (and CHANGELOG.md) first, or tag v$version"
    heading="$(newest_release_heading)"
    case "$heading" in
        "### session-conformance $version "* | "### session-conformance $version") ;;
        *) fail "CHANGELOG.md's newest release is '${heading:-none}', not session-conformance $version: write its entry first" ;;
    esac
    echo "$version"
    ;;
notes)
    heading="$(newest_release_heading)"
    [ -n "$heading" ] || fail "CHANGELOG.md has no release under '## Releases'"
    awk -v heading="$heading" '
        $0 == heading { inside = 1; next }
        inside && (/^## / || /^### /) { exit }
        inside { print }
    ' CHANGELOG.md
    ;;
sums)
    dir="${2:?usage: release.sh sums DIR}"
    cd "$dir"
    found=0
    for archive in *.tar.gz; do
        [ -f "$archive" ] || continue
        found=1
        [ -f "$archive.sha256" ] || fail "$dir/$archive has no $archive.sha256 beside it"
        sha256_check -c "$archive.sha256" >/dev/null || fail "$dir/$archive does not match its $archive.sha256"
    done
    [ "$found" = 1 ] || fail "no release archive (*.tar.gz) in $dir"
    sha256_check -- *.tar.gz > SHA256SUMS
    cat SHA256SUMS
    ;;
*)
    echo "usage: release.sh check-tag TAG | notes | sums DIR" >&2
    exit 2
    ;;
esac
