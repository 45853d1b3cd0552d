#!/bin/sh
# Builds the JVM kit (kits/jvm/build.sh: its jars, once), compiles the adapter once (into build/, beside this
# script) and runs it. Needs a JDK and Debian's libokhttp-java (okhttp.jar and okio.jar under /usr/share/java).
set -e
here=$(cd "$(dirname "$0")" && pwd)
kit="$here/../../../kits/jvm"
"$kit/build.sh" >/dev/null
classpath=$kit/build/session-conformance-kit-1.0.0.jar:$kit/build/session-conformance-kit-okhttp-1.0.0.jar:/usr/share/java/okhttp.jar:/usr/share/java/okio.jar
if [ ! -f "$here/build/Adapter.class" ] || [ -n "$(find "$here/src" "$kit/build" -newer "$here/build/Adapter.class" \( -name '*.java' -o -name '*.jar' \))" ]; then
    tmp=$(mktemp -d "$here/.build.XXXXXX")
    javac -nowarn -d "$tmp" -cp "$classpath" "$here"/src/*.java >&2
    rm -rf "$here/build"
    mv "$tmp" "$here/build" 2>/dev/null || rm -rf "$tmp"
fi
exec java -Xshare:auto -XX:TieredStopAtLevel=1 -cp "$here/build:$classpath" Adapter "$@"
