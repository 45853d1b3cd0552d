#!/usr/bin/env bash
# Builds the release archive session-conformance-<version>-<os>-<arch>.tar.gz (docs/ci.md#installing):
#   session-conformance-<version>-<os>-<arch>/
#     session-conformance                     the CLI; on Linux the Swift runtime, libyaml, libstdc++ and
#                                             libgcc linked statically: it needs only the C library
#     session-conformance-reference-adapter   the reference adapter (--connection process finds it beside the CLI)
#     Specs/                                  the specs the CLI reads when no --spec-root is given and the
#                                             working directory has no Specs/ (they sit beside the CLI)
#     README.md, CHANGELOG.md, docs/
#     kits/                                   the adapter kits' sources (Python, JavaScript, JVM), installable
#                                             from the archive as from a checkout (docs/porting-guide.md, section 6)
# and, beside the archive, session-conformance-<version>-<os>-<arch>.tar.gz.sha256 (`sha256sum -c` reads it).
# Usage: scripts/package.sh [output-directory]   (default: .build/dist); prints the archive's path last.
# SESSION_CONFORMANCE_SKIP_BUILD=1 packages the binaries already built, from SESSION_CONFORMANCE_BIN_DIR
# (default .build/release); the layout test packages the debug build that way.
set -euo pipefail
cd "$(dirname "$0")/.."

out_dir="${1:-.build/dist}"
version="$(bash scripts/version.sh)"
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
arch="$(uname -m)"
name="session-conformance-$version-$os-$arch"

if [ "${SESSION_CONFORMANCE_SKIP_BUILD:-0}" != 1 ]; then
    # libyaml statically. SwiftPM links the CYAML system library with the flags pkg-config gives for
    # yaml-0.1, `-L<libdir> -lyaml`, ahead of any -Xlinker flag; ld takes, from the first directory on that
    # search path holding libyaml.so or libyaml.a, whichever it finds there (ld manual, -l). So a yaml-0.1.pc
    # whose libdir holds only libyaml.a, found first through PKG_CONFIG_PATH, makes `-lyaml` the archive.
    static_dir="$PWD/.build/static-libs"
    mkdir -p "$static_dir/pkgconfig"
    yaml_libdir="$(pkg-config --variable=libdir yaml-0.1 2>/dev/null || true)"
    yaml_a=""
    for dir in $yaml_libdir /usr/lib/"$arch"-linux-gnu /usr/lib /usr/local/lib /opt/homebrew/lib; do
        if [ -f "$dir/libyaml.a" ]; then yaml_a="$dir/libyaml.a"; break; fi
    done
    if [ -z "$yaml_a" ]; then
        echo "package.sh: libyaml.a not found (Debian: apt-get install libyaml-dev)" >&2
        exit 1
    fi
    ln -sf "$yaml_a" "$static_dir/libyaml.a"
    cat > "$static_dir/pkgconfig/yaml-0.1.pc" <<PC
libdir=$static_dir
includedir=$(pkg-config --variable=includedir yaml-0.1 2>/dev/null || echo /usr/include)

Name: LibYAML
Description: libyaml, linked statically into the release archive
Version: $(pkg-config --modversion yaml-0.1 2>/dev/null || echo 0.2.5)
Libs: -L\${libdir} -lyaml
Cflags: -I\${includedir}
PC
    export PKG_CONFIG_PATH="$static_dir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    if [ "$os" = darwin ]; then
        # macOS ships the Swift runtime and the C++ library: only libyaml is linked in.
        static_flags=()
    else
        # The static Swift runtime links `-lstdc++` by name (static-stdlib-args.lnk): the same search-path
        # rule makes it libstdc++.a from $static_dir; clang's -static-libgcc replaces libgcc_s with libgcc
        # and libgcc_eh. Then the binaries need only the C library (.ci/run checks with ldd).
        libstdcxx_a="$(clang -print-file-name=libstdc++.a 2>/dev/null || true)"
        if [ ! -f "$libstdcxx_a" ]; then
            echo "package.sh: libstdc++.a not found (Debian: apt-get install libstdc++-12-dev)" >&2
            exit 1
        fi
        ln -sf "$libstdcxx_a" "$static_dir/libstdc++.a"
        static_flags=(--static-swift-stdlib -Xlinker -L"$static_dir" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc)
    fi
    for product in session-conformance session-conformance-reference-adapter; do
        # ${a[@]+"${a[@]}"}: an empty array under set -u, which bash 3.2 (macOS) calls unbound otherwise.
        swift build -c release ${static_flags[@]+"${static_flags[@]}"} --product "$product"
    done
fi
bin_dir="${SESSION_CONFORMANCE_BIN_DIR:-$(swift build -c release --show-bin-path)}"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/docs"
cp "$bin_dir/session-conformance" "$bin_dir/session-conformance-reference-adapter" "$stage/$name/"
# Symbols and debug info need not ship (over a quarter of a release binary).
strip "$stage/$name/session-conformance" "$stage/$name/session-conformance-reference-adapter" 2>/dev/null || true
cp -R Specs "$stage/$name/Specs"
cp README.md CHANGELOG.md "$stage/$name/"
cp docs/*.md docs/*.json "$stage/$name/docs/"
# The kits as committed: no build output, installed package or cache a local run left beside them.
if [ -n "$(git ls-files kits 2>/dev/null | head -n 1)" ]; then
    git ls-files -z kits | tar -c --null -T - -f - | tar -x -f - -C "$stage/$name"
else
    cp -R kits "$stage/$name/kits"
    find "$stage/$name/kits" \( -name build -o -name node_modules -o -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
fi

mkdir -p "$out_dir"
tar -C "$stage" -czf "$out_dir/$name.tar.gz" "$name"
if command -v sha256sum >/dev/null; then
    (cd "$out_dir" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
else
    (cd "$out_dir" && shasum -a 256 "$name.tar.gz" > "$name.tar.gz.sha256")
fi
echo "$out_dir/$name.tar.gz"
