#!/bin/sh
# Builds the JVM kit's jars, compiles the tests against them and runs them (kits/jvm/test/src/KitTests.java:
# a small test runner, no JUnit). Exit 0 when every test passed. The OkHttp test runs when OkHttp's jar is
# found (OKHTTP_CLASSPATH, default Debian's); SESSION_CONFORMANCE_REQUIRE_TOOLS=1 makes its absence a failure.
# With SESSION_CONFORMANCE=path/to/session-conformance, an example on the kit (Examples/adapters/java, OkHttp)
# then goes through `doctor`, which must find no problem.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
core=$("$here/build.sh")
okjar="$here/build/session-conformance-kit-okhttp-1.0.0.jar"
okhttp_classpath=${OKHTTP_CLASSPATH:-/usr/share/java/okhttp.jar:/usr/share/java/okio.jar}
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
classpath="$core"
sources=$(find "$here/test/src" -name '*.java')
if [ -f "$okjar" ] && [ -f "${okhttp_classpath%%:*}" ]; then
    classpath="$classpath:$okjar:$okhttp_classpath"
    sources="$sources $(find "$here/test/okhttp" -name '*.java')"
fi
javac --release 17 -nowarn -d "$classes" -cp "$classpath" $sources
java -cp "$classes:$classpath" KitTests "$@"
if [ -n "${SESSION_CONFORMANCE:-}" ] && [ $# -eq 0 ]; then
    if [ -f "$okjar" ]; then
        root=$(cd "$here/../.." && pwd)
        (cd "$root" && "$SESSION_CONFORMANCE" doctor --world json-v1 --adapter Examples/adapters/java/run.sh --timeout 60) | tail -n 1 | tee "$classes/doctor"
        grep -q "doctor: 0 problems" "$classes/doctor" || { echo "test.sh: doctor found a problem with Examples/adapters/java on the kit" >&2; exit 1; }
    elif [ "${SESSION_CONFORMANCE_REQUIRE_TOOLS:-}" = 1 ]; then
        echo "test.sh: OkHttp's jar is missing, so the example cannot run (SESSION_CONFORMANCE_REQUIRE_TOOLS=1)" >&2
        exit 1
    fi
fi
