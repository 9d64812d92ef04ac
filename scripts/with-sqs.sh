#!/usr/bin/env bash
# with-sqs.sh CMD [ARGS...]
#
# Runs CMD with a throwaway moto_server, which serves SQS, on a free
# loopback port, exported as IDEMQ_TEST_SQS_ENDPOINT=http://127.0.0.1:PORT
# (scripts/moto.sh). It waits up to IDEMQ_SQS_READY_TIMEOUT seconds
# (default 30) for the server.
#
#   scripts/with-sqs.sh go test ./consumer
set -euo pipefail
# shellcheck source=moto.sh
source "$(dirname "${BASH_SOURCE[0]}")/moto.sh"
with_moto with-sqs IDEMQ_TEST_SQS_ENDPOINT "${IDEMQ_SQS_READY_TIMEOUT:-30}" "$@"
