#!/bin/sh
# Builds the JVM kit with the JDK alone (javac and jar, Java 17):
#   build/session-conformance-kit-1.0.0.jar          the host (package org.sessionconformance.kit)
#   build/session-conformance-kit-okhttp-1.0.0.jar   OkHttp interceptors, only when OkHttp's jar is found
# OKHTTP_CLASSPATH names OkHttp's jars (default: Debian's /usr/share/java/okhttp.jar and okio.jar).
# Rebuilds only when a source is newer than its jar; prints the core jar's path on stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
version=1.0.0
out="$here/build"
core="$out/session-conformance-kit-$version.jar"
okjar="$out/session-conformance-kit-okhttp-$version.jar"
okhttp_classpath=${OKHTTP_CLASSPATH:-/usr/share/java/okhttp.jar:/usr/share/java/okio.jar}
mkdir -p "$out"

stale() { # stale JAR DIR: the jar is missing or older than a source under DIR
    [ ! -f "$1" ] || [ -n "$(find "$2" -name '*.java' -newer "$1" | head -n 1)" ]
}

if stale "$core" "$here/src"; then
    tmp=$(mktemp -d "$out/.core.XXXXXX")
    javac --release 17 -Xlint:all -Werror -d "$tmp/classes" $(find "$here/src" -name '*.java') >&2
    jar --create --file "$tmp/kit.jar" -C "$tmp/classes" . >&2
    mv "$tmp/kit.jar" "$core"
    rm -rf "$tmp"
fi

okhttp_jar=${okhttp_classpath%%:*}
if [ -f "$okhttp_jar" ]; then
    if stale "$okjar" "$here/okhttp/src" || [ "$core" -nt "$okjar" ]; then
        tmp=$(mktemp -d "$out/.okhttp.XXXXXX")
        javac --release 17 -Xlint:all -Werror -d "$tmp/classes" -cp "$core:$okhttp_classpath" $(find "$here/okhttp/src" -name '*.java') >&2
        jar --create --file "$tmp/kit.jar" -C "$tmp/classes" . >&2
        mv "$tmp/kit.jar" "$okjar"
        rm -rf "$tmp"
    fi
else
    echo "build.sh: $okhttp_jar not found: the OkHttp jar of the kit is not built (set OKHTTP_CLASSPATH)" >&2
fi
echo "$core"
