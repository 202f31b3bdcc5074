#!/usr/bin/env bash
# The core on the oldest Rust it says it supports (`rust-version = "1.85"`), with Debian's
# rustc-web 1.85, installed beside rustup's toolchain when missing: the rules' and the
# derive's tests, the runtime's unit tests, and the facade's library and command, with every
# feature but `recover` and `stream` (which need Rust 1.88). The facade's tests need what
# their dev-dependencies need (Rust 1.95), and the runtime's doc tests every feature: they
# run on the current toolchain, as the trybuild snapshots of its messages do.
set -euo pipefail
cd "$(dirname "$0")/.."
msrv=1.85
if ! /usr/bin/rustc --version 2> /dev/null | grep -q "^rustc $msrv\." ||
    ! /usr/bin/cargo --version 2> /dev/null | grep -q "^cargo $msrv\."; then
    echo "== installing Debian's Rust $msrv (rustc-web)"
    # Pinned: the security archive offers a newer rustc-web too.
    packages=("rustc-web=$msrv.*" "cargo-web=$msrv.*" "libstd-rust-web-dev=$msrv.*")
    if [ "$(id -u)" = 0 ]; then
        apt-get update && apt-get install -y --allow-downgrades "${packages[@]}"
    else
        sudo apt-get update && sudo apt-get install -y --allow-downgrades "${packages[@]}"
    fi
fi
# Debian's cargo, rustc and rustdoc, not rustup's, in a target directory of their own.
cargo_msrv() {
    env -u RUSTUP_TOOLCHAIN -u RUSTC_WRAPPER -u CARGO PATH=/usr/bin:/bin \
        RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/msrv" \
        /usr/bin/cargo "$@"
}
cargo_msrv --version
features=(--no-default-features --features registry,http,serde,tokio,tracing,anyhow,miette,schemars)
# One build for the three crates' unit tests (the features are the runtime's), then the
# rules' and the derive's doc tests.
cargo_msrv test --locked --quiet -p agent-error-rules -p agent-error-derive -p agent-error-runtime --lib "${features[@]}"
cargo_msrv test --locked --quiet -p agent-error-rules -p agent-error-derive --doc
cargo_msrv build --locked --quiet -p agent-error --lib --bins "${features[@]}"
