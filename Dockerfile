# session-conformance as a container image (docs/ci.md#installing).
#   docker build -t session-conformance .
#   docker run --rm -v "$PWD:/work" session-conformance run --adapter ./adapter/run --report json=reports/report.json
# The build stage makes the release archive with scripts/package.sh (the CLI links the Swift runtime and
# libyaml statically); the image ships only the unpacked archive on a slim Debian of the same release, so
# the archive's glibc requirement is met.
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

FROM ${BASE_IMAGE}
COPY --from=build /dist/session-conformance /opt/session-conformance
RUN ln -s /opt/session-conformance/session-conformance /usr/local/bin/session-conformance \
    && ln -s /opt/session-conformance/session-conformance-reference-adapter /usr/local/bin/session-conformance-reference-adapter
# Mount the client's repository here; with no Specs/ in it, the CLI reads the Specs/ beside itself.
WORKDIR /work
ENTRYPOINT ["session-conformance"]
CMD ["--help"]
