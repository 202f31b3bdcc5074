#!/usr/bin/env bash
# The README's test command: installs what the tests need (redis-server, for the Redis
# store's tests against a real server on loopback) when it is missing, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v redis-server > /dev/null; then
    echo "== installing redis-server"
    if [ "$(id -u)" = 0 ]; then
        apt-get update && apt-get install -y redis-server
    else
        sudo apt-get update && sudo apt-get install -y redis-server
    fi
fi
# Twice as many test threads as cores: most tests wait on a socket, a server or a clock
# rather than compute (the suite runs in 19 s so on 2 cores, 30 s with one thread a core).
# Set RUST_TEST_THREADS to choose.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-$(( $(nproc 2> /dev/null || echo 1) * 2 ))}"
cargo test --workspace --all-features "$@"
