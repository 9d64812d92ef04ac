package idemqcdk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemq/idemq/request"
)

// The environment variables the functions are given, by their names in
// package idemqenv, which declares each once, with its parser (the worker
// reads them with it: idemqenv.Read) and its doc line.
const (
	// envTable holds the idempotency table's name.
	envTable = "IDEMQ_TABLE"
	// envRecordExpiry holds the record expiry as a Go duration string
	// (time.Duration.String, e.g. "120h19m0s").
	envRecordExpiry = "IDEMQ_RECORD_EXPIRY"
	// envDynamoDBStrong is "true" when the record table is a global table
	// with multi-Region strong consistency (Replicas): the store then
	// refuses staged writes, which such a table cannot commit. Set only
	// with Replicas.
	envDynamoDBStrong = "IDEMQ_DYNAMODB_MULTI_REGION_STRONG"
	// envClockSkew holds the bound on every worker's clock error that
	// leases are safe within (idem.Config.ClockSkew), as a Go duration:
	// always set, idem.DefaultClockSkew, so that every function of a
	// table judges leases by the same bound, whatever its version's
	// default.
	envClockSkew = "IDEMQ_CLOCK_SKEW"
	// envBackoff is "true" when in-progress back-off is on, "false" when
	// it is off: always set, so the worker's own default never decides.
	envBackoff = "IDEMQ_BACKOFF"
	// envProviderURL holds the model provider's base URL; set only when
	// WorkerProps.ProviderURL is (NewStack: idemq:providerUrl).
	envProviderURL = "IDEMQ_PROVIDER_URL"
	// envProviderAPIKeySecret names the Secrets Manager secret holding the
	// provider's API key; set only when WorkerProps.ProviderAPIKeySecret
	// is.
	envProviderAPIKeySecret = "IDEMQ_PROVIDER_API_KEY_SECRET"
	// envProviderAPIKey is the worker's variable for the API key in plain
	// text, for local runs. A Worker never sets it, and rejects it in
	// WorkerProps.Environment.
	envProviderAPIKey = "IDEMQ_PROVIDER_API_KEY"
	// envQueue holds the queue's settings, the dead-letter queue's
	// retention included, as JSON (queue.Settings' MarshalJSON):
	// the worker checks its record expiry and lease against them at
	// start-up.
	envQueue = "IDEMQ_QUEUE"
	// envEMFNamespace holds the CloudWatch namespace of the handler's
	// per-batch metrics, metricNamespace: always set, so the alarms and the
	// dashboard have metrics.
	envEMFNamespace = "IDEMQ_EMF_NAMESPACE"
	// envBlobBucket holds the name of the bucket of large results; set
	// only with the bucket (WorkerProps.DisableBlobs false).
	envBlobBucket = "IDEMQ_BLOB_BUCKET"
	// envBlobPrefix holds the results' key prefix (WorkerProps.BlobPrefix,
	// by default defaultBlobPrefix); set only with the bucket.
	envBlobPrefix = "IDEMQ_BLOB_PREFIX"
	// envTracing holds the worker's tracing, "otel" or "xray"; set only
	// with tracing on (lambda/tracing.go).
	envTracing = "IDEMQ_TRACING"
	// envMode is "frontdoor" on the front door's function; unset on the
	// worker's.
	envMode = "IDEMQ_MODE"
	// envFrontDoorQueueURL holds the URL of the queue the front door sends
	// requests to: the Worker's queue.
	envFrontDoorQueueURL = "IDEMQ_FRONTDOOR_QUEUE_URL"
	// envFrontDoorScope says whose key is it: unset (each IAM principal's
	// keys are its own) or "iam-session" (each role session's:
	// frontDoorScopeSession) behind an AWS_IAM URL, "none" (one key space
	// shared by every caller) behind a public one, which carries no
	// caller.
	envFrontDoorScope = "IDEMQ_FRONTDOOR_SCOPE"
	// envPrefix starts every variable of the worker's: WorkerProps.Environment
	// takes none, so that none bypasses the checks made at synth.
	envPrefix = "IDEMQ_"
)

// setByWorker reports whether a Worker sets the variable name itself:
// who a request is (request.Fields), and the rest of its settings.
func setByWorker(name string) bool {
	for _, f := range request.Fields() {
		if f.Var == name {
			return true
		}
	}
	return slices.Contains([]string{envTable, envRecordExpiry, envClockSkew, envBackoff, envProviderAPIKeySecret, envQueue, envEMFNamespace, envBlobBucket, envBlobPrefix, envTracing, envDynamoDBStrong}, name)
}

// checkEnvName refuses a name of WorkerProps.Environment that starts with
// envPrefix, saying what to set instead.
func checkEnvName(name string, label func(field string) string) error {
	if !strings.HasPrefix(name, envPrefix) {
		return nil
	}
	var why string
	switch {
	case name == envProviderAPIKey:
		why = fmt.Sprintf("which would deploy the API key in plain text in the function's configuration; store it in a Secrets Manager secret and set %s",
			label("ProviderAPIKeySecret"))
	case name == envProviderURL:
		why = fmt.Sprintf("which the Worker sets itself from %s once checked; set that instead", label("ProviderURL"))
	case setByWorker(name):
		why = "which the Worker sets itself; remove it"
	default:
		why = fmt.Sprintf("a worker's setting (every %s variable is reserved): the Worker sets the ones it supports from its props once they are checked against the queue, "+
			"and one set here would bypass those checks (%s, for one, decides how long a crashed worker's message waits, which the checks of the receives and retention assume); remove it",
			envPrefix, "IDEMQ_LEASE")
	}
	return &SettingError{Field: "Environment", Msg: fmt.Sprintf("%s sets %s, %s", label("Environment"), name, why)}
}
