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
cargo test --workspace --all-features "$@"
