# session-conformance as a container image (docs/ci.md#installing).
#   docker build -t session-conformance .                              the slim image: the CLI alone
#   docker build --target python -t session-conformance:python .       plus Python 3, for an adapter in Python
#   docker build --target node -t session-conformance:node .           plus Node.js, for an adapter in JavaScript
#   docker build --target jvm -t session-conformance:jvm .             plus a JDK (javac, java), for Java or Kotlin
#   docker run --rm -v "$PWD:/work" session-conformance run --adapter ./adapter/run --report json=reports/report.json
# The build stage makes the release archive with scripts/package.sh (the CLI links the Swift runtime, libyaml,
# libstdc++ and libgcc statically); the slim stage ships only the unpacked archive on a slim Debian of the
# same release, so the archive's glibc requirement is met. Each variant adds one runtime from Debian to the
# slim stage; the last stage, the default target, is the slim image.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libyaml-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN bash scripts/package.sh /dist \
    && mkdir /dist/session-conformance \
    && tar -xzf /dist/session-conformance-*.tar.gz -C /dist/session-conformance --strip-components=1

FROM ${BASE_IMAGE} AS slim
COPY --from=build /dist/session-conformance /opt/session-conformance
RUN ln -s /opt/session-conformance/session-conformance /usr/local/bin/session-conformance \
    && ln -s /opt/session-conformance/session-conformance-reference-adapter /usr/local/bin/session-conformance-reference-adapter
# Mount the client's repository here; with no Specs/ in it, the CLI reads the Specs/ beside itself.
WORKDIR /work
ENTRYPOINT ["session-conformance"]
CMD ["--help"]

FROM slim AS python
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 \
    && rm -rf /var/lib/apt/lists/*

FROM slim AS node
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs \
    && rm -rf /var/lib/apt/lists/*

FROM slim AS jvm
RUN mkdir -p /usr/share/man/man1 \
    && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends default-jdk-headless \
    && rm -rf /var/lib/apt/lists/*

FROM slim
