# The lowstate container image: a static musl binary on an empty base.
#
#   docker build -t lowstate .
#   docker run --rm -v "$PWD:/src" lowstate check -c .
#
# Stage 1 builds on Alpine, whose Rust targets musl and links statically;
# stage 2 holds the binary alone (no shell, no libc), run from /src, where
# the tree is mounted. `fleet --diff REV` needs git and is not for this
# image (give it a directory instead).
FROM rust:1-alpine AS build
# The C parts (mimalloc) need a compiler and musl's headers; the image's
# Alpine release pins their versions.
# hadolint ignore=DL3018
RUN apk add --no-cache musl-dev gcc
WORKDIR /build
COPY . .
# Without the debug info the release profile keeps for profiling.
ENV CARGO_PROFILE_RELEASE_STRIP=symbols
RUN cargo build --release --locked --bin lowstate

FROM scratch
COPY --from=build /build/target/release/lowstate /usr/local/bin/lowstate
# Runs only if the binary is static: this stage has no loader and no libc.
RUN ["/usr/local/bin/lowstate", "--version"]
WORKDIR /src
ENTRYPOINT ["/usr/local/bin/lowstate"]
CMD ["--help"]
