package idemqcdk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/request"
)

// The environment variables the functions are given, by their names in
// package idemqenv, which declares each once, with its parser (the worker
// reads them with it: idemqenv.Read) and its doc line.
const (
	// EnvTable holds the idempotency table's name.
	EnvTable = idemqenv.Table
	// EnvRecordExpiry holds the record expiry as a Go duration string
	// (time.Duration.String, e.g. "120h19m0s").
	EnvRecordExpiry = idemqenv.RecordExpiry
	// EnvNamespace holds the prefix of every idempotency key
	// (WorkerProps.Request.Namespace).
	EnvNamespace = idemqenv.Namespace
	// EnvKeyField holds the JSON field of the body that carries the
	// idempotency key (WorkerProps.Request.KeyField; when no other key
	// source is set, request.DefaultKeyField).
	EnvKeyField = idemqenv.KeyField
	// EnvKeyFields holds the body members that make a natural key,
	// comma-separated (WorkerProps.Request.KeyFields); set only with them.
	EnvKeyFields = idemqenv.KeyFields
	// envKeyAttribute holds the message attribute that carries the key
	// (WorkerProps.Request.KeyAttribute); set only with it.
	envKeyAttribute = idemqenv.KeyAttribute
	// EnvFingerprintFields holds the body members checked against the
	// stored record, comma-separated
	// (WorkerProps.Request.FingerprintFields); set only with them.
	EnvFingerprintFields = idemqenv.FingerprintFields
	// EnvDynamoDBStrong is "true" when the record table is a global table
	// with multi-Region strong consistency (Replicas): the store then
	// refuses staged writes, which such a table cannot commit. Set only
	// with Replicas.
	EnvDynamoDBStrong = idemqenv.DynamoDBStrong
	// EnvClockSkew holds the bound on every worker's clock error that
	// leases are safe within (idem.Config.ClockSkew), as a Go duration:
	// always set, idem.DefaultClockSkew, so that every function of a
	// table judges leases by the same bound, whatever its version's
	// default.
	EnvClockSkew = idemqenv.ClockSkew
	// EnvBackoff is "true" when in-progress back-off is on, "false" when
	// it is off: always set, so the worker's own default never decides.
	EnvBackoff = idemqenv.Backoff
	// EnvProviderURL holds the model provider's base URL; set only when
	// WorkerProps.ProviderURL is (NewStack: idemq:providerUrl).
	EnvProviderURL = idemqenv.ProviderURL
	// EnvProviderAPIKeySecret names the Secrets Manager secret holding the
	// provider's API key; set only when WorkerProps.ProviderAPIKeySecret
	// is.
	EnvProviderAPIKeySecret = idemqenv.ProviderAPIKeySecret
	// EnvProviderAPIKey is the worker's variable for the API key in plain
	// text, for local runs. A Worker never sets it, and rejects it in
	// WorkerProps.Environment.
	EnvProviderAPIKey = idemqenv.ProviderAPIKey
	// EnvQueue holds the queue's settings, the dead-letter queue's
	// retention included, as JSON (queue.Settings' MarshalJSON):
	// the worker checks its record expiry and lease against them at
	// start-up.
	EnvQueue = idemqenv.Queue
	// EnvEMFNamespace holds the CloudWatch namespace of the handler's
	// per-batch metrics, MetricNamespace: always set, so the alarms and the
	// dashboard have metrics.
	EnvEMFNamespace = idemqenv.EMFNamespace
	// EnvBlobBucket holds the name of the bucket of large results; set
	// only with the bucket (WorkerProps.DisableBlobs false).
	EnvBlobBucket = idemqenv.BlobBucket
	// EnvBlobPrefix holds the results' key prefix (WorkerProps.BlobPrefix,
	// by default DefaultBlobPrefix); set only with the bucket.
	EnvBlobPrefix = idemqenv.BlobPrefix
	// EnvTracing holds the worker's tracing, "otel" or "xray"; set only
	// with tracing on (lambda/tracing.go).
	EnvTracing = idemqenv.Tracing
	// EnvMode is "frontdoor" on the front door's function; unset on the
	// worker's.
	EnvMode = idemqenv.Mode
	// EnvFrontDoorQueueURL holds the URL of the queue the front door sends
	// requests to: the Worker's queue.
	EnvFrontDoorQueueURL = idemqenv.FrontDoorQueueURL
	// EnvFrontDoorScope says whose key is it: unset (each IAM principal's
	// keys are its own) or "iam-session" (each role session's:
	// frontDoorScopeSession) behind an AWS_IAM URL, "none" (one key space
	// shared by every caller) behind a public one, which carries no
	// caller.
	EnvFrontDoorScope = idemqenv.FrontDoorScope
	// envPrefix starts every variable of the worker's: WorkerProps.Environment
	// takes none, so that none bypasses the checks made at synth.
	envPrefix = idemqenv.Prefix
)

// setByWorker reports whether a Worker sets the variable name itself:
// who a request is (request.Fields), and the rest of its settings.
func setByWorker(name string) bool {
	for _, f := range request.Fields() {
		if f.Var == name {
			return true
		}
	}
	return slices.Contains([]string{EnvTable, EnvRecordExpiry, EnvClockSkew, EnvBackoff, EnvProviderAPIKeySecret, EnvQueue, EnvEMFNamespace, EnvBlobBucket, EnvBlobPrefix, EnvTracing, EnvDynamoDBStrong}, name)
}

// checkEnvName refuses a name of WorkerProps.Environment that starts with
// envPrefix, saying what to set instead.
func checkEnvName(name string, label func(field string) string) error {
	if !strings.HasPrefix(name, envPrefix) {
		return nil
	}
	var why string
	switch {
	case name == EnvProviderAPIKey:
		why = fmt.Sprintf("which would deploy the API key in plain text in the function's configuration; store it in a Secrets Manager secret and set %s",
			label("ProviderAPIKeySecret"))
	case name == EnvProviderURL:
		why = fmt.Sprintf("which the Worker sets itself from %s once checked; set that instead", label("ProviderURL"))
	case setByWorker(name):
		why = "which the Worker sets itself; remove it"
	default:
		why = fmt.Sprintf("a worker's setting (every %s variable is reserved): the Worker sets the ones it supports from its props once they are checked against the queue, "+
			"and one set here would bypass those checks (%s, for one, decides how long a crashed worker's message waits, which the checks of the receives and retention assume); remove it",
			envPrefix, idemqenv.Lease)
	}
	return &SettingError{Field: "Environment", Msg: fmt.Sprintf("%s sets %s, %s", label("Environment"), name, why)}
}
