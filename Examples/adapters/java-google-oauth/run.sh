#!/bin/sh
# Builds the JVM kit (kits/jvm/build.sh: its jar, once), compiles the adapter once (into build/, beside this
# script) and runs it. Needs a JDK and Debian's libgoogle-oauth-client-java (which brings
# libgoogle-http-client-java, Apache httpclient, gson, guava, opencensus).
set -e
here=$(cd "$(dirname "$0")" && pwd)
kit="$here/../../../kits/jvm"
"$kit/build.sh" >/dev/null
jars=/usr/share/java
classpath=$kit/build/session-conformance-kit-1.0.0.jar:$jars/google-oauth-client.jar:$jars/google-http-client.jar:$jars/google-http-client-gson.jar:$jars/gson.jar:$jars/guava.jar:$jars/opencensus-api.jar:$jars/opencensus-contrib-http-util.jar:$jars/grpc-context.jar:$jars/httpclient.jar:$jars/httpcore.jar:$jars/commons-logging.jar
if [ ! -f "$here/build/Adapter.class" ] || [ -n "$(find "$here/src" "$kit/build" -newer "$here/build/Adapter.class" \( -name '*.java' -o -name '*.jar' \))" ]; then
    tmp=$(mktemp -d "$here/.build.XXXXXX")
    javac -nowarn -d "$tmp" -cp "$classpath" "$here"/src/*.java >&2
    rm -rf "$here/build"
    mv "$tmp" "$here/build" 2>/dev/null || rm -rf "$tmp"
fi
exec java -Xshare:auto -XX:TieredStopAtLevel=1 -cp "$here/build:$classpath" Adapter
