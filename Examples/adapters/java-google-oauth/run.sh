#!/bin/sh
# Compiles the adapter once (into build/, beside this script) and runs it. Needs a JDK and Debian's
# libgoogle-oauth-client-java (which brings libgoogle-http-client-java, Apache httpclient, gson, guava, opencensus).
set -e
here=$(cd "$(dirname "$0")" && pwd)
jars=/usr/share/java
classpath=$jars/google-oauth-client.jar:$jars/google-http-client.jar:$jars/google-http-client-gson.jar:$jars/gson.jar:$jars/guava.jar:$jars/opencensus-api.jar:$jars/opencensus-contrib-http-util.jar:$jars/grpc-context.jar:$jars/httpclient.jar:$jars/httpcore.jar:$jars/commons-logging.jar
# Json.java is the Java example's (../java/src).
sources="$here/src/*.java $here/../java/src/Json.java"
if [ ! -f "$here/build/Adapter.class" ] || [ -n "$(find "$here/src" "$here/../java/src/Json.java" -newer "$here/build/Adapter.class" -name '*.java')" ]; then
    tmp=$(mktemp -d "$here/.build.XXXXXX")
    javac -nowarn -d "$tmp" -cp "$classpath" $sources >&2
    rm -rf "$here/build"
    mv "$tmp" "$here/build" 2>/dev/null || rm -rf "$tmp"
fi
exec java -Xshare:auto -XX:TieredStopAtLevel=1 -cp "$here/build:$classpath" Adapter
