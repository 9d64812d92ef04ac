#!/usr/bin/env bash
# with-s3.sh CMD [ARGS...]
#
# Runs CMD with a throwaway moto_server, which serves S3 with path-style
# addressing, on a free loopback port, exported as
# IDEMQ_TEST_S3_ENDPOINT=http://127.0.0.1:PORT (scripts/moto.sh). It waits
# up to IDEMQ_S3_READY_TIMEOUT seconds (default 30) for the server.
#
#   scripts/with-s3.sh go test ./idem/s3blob
set -euo pipefail
# shellcheck source=moto.sh
source "$(dirname "${BASH_SOURCE[0]}")/moto.sh"
with_moto with-s3 IDEMQ_TEST_S3_ENDPOINT "${IDEMQ_S3_READY_TIMEOUT:-30}" "$@"
