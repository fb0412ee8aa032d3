# config-hash as a KRM function container image.
#
#   docker build -t localhost/config-hash:latest .
#   kpt fn eval DIR --image localhost/config-hash:latest
#
# (A registry host in the name: kpt rewrites an unqualified name to gcr.io/kpt-fn/.)
#
# The build stage links glibc statically (crt-static), so the final image is FROM
# scratch: the binary, and a passwd/group naming `nobody`, because kpt runs function
# containers with `--user nobody --network none`. tests/e2e_container.rs builds the
# final stage below from a locally built binary and runs it under kpt and kustomize.

ARG RUST_VERSION=1.85

FROM docker.io/library/rust:${RUST_VERSION}-slim-bookworm AS build
WORKDIR /src
COPY . .
# --target keeps crt-static off build scripts and proc-macros (clap's derive), which
# must stay dynamic; only the shipped binary is static.
RUN RUSTFLAGS='-C target-feature=+crt-static' \
      cargo build --release --locked --target x86_64-unknown-linux-gnu \
 && install -D -m 0755 target/x86_64-unknown-linux-gnu/release/config-hash /out/config-hash

FROM scratch
COPY container/passwd container/group /etc/
COPY --from=build /out/config-hash /config-hash
USER 65534:65534
ENTRYPOINT ["/config-hash"]
