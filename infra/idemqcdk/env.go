package idemqcdk

import (
	"fmt"
	"slices"
	"strings"
)

// The environment variables the function is given. The worker in lambda/
// reads the same names.
const (
	// EnvTable holds the idempotency table's name.
	EnvTable = "IDEMQ_TABLE"
	// EnvRecordExpiry holds the record expiry as a Go duration string
	// (time.Duration.String, e.g. "120h19m0s").
	EnvRecordExpiry = "IDEMQ_RECORD_EXPIRY"
	// EnvKeyField holds the JSON field of the body that carries the
	// idempotency key (WorkerProps.KeyField).
	EnvKeyField = "IDEMQ_KEY_FIELD"
	// EnvNamespace holds the prefix of every idempotency key.
	EnvNamespace = "IDEMQ_NAMESPACE"
	// EnvBackoff is "true" when in-progress back-off is on, "false" when
	// it is off: always set, so the worker's own default never decides.
	EnvBackoff = "IDEMQ_BACKOFF"
	// EnvProviderURL holds the model provider's base URL; set only when
	// WorkerProps.ProviderURL is (NewStack: idemq:providerUrl).
	EnvProviderURL = "IDEMQ_PROVIDER_URL"
	// EnvProviderAPIKeySecret names the Secrets Manager secret holding the
	// provider's API key; set only when WorkerProps.ProviderAPIKeySecret
	// is.
	EnvProviderAPIKeySecret = "IDEMQ_PROVIDER_API_KEY_SECRET"
	// EnvProviderAPIKey is the worker's variable for the API key in plain
	// text, for local runs. A Worker never sets it, and rejects it in
	// WorkerProps.Environment.
	EnvProviderAPIKey = "IDEMQ_PROVIDER_API_KEY"
	// EnvQueue holds the queue's settings, the dead-letter queue's
	// retention included, as JSON (queue.Settings' MarshalJSON):
	// the worker checks its record expiry and lease against them at
	// start-up.
	EnvQueue = "IDEMQ_QUEUE"
	// EnvEMFNamespace holds the CloudWatch namespace of the handler's
	// per-batch metrics, MetricNamespace: always set, so the alarms and the
	// dashboard have metrics.
	EnvEMFNamespace = "IDEMQ_EMF_NAMESPACE"
	// EnvBlobBucket holds the name of the bucket of large results; set
	// only with the bucket (WorkerProps.DisableBlobs false).
	EnvBlobBucket = "IDEMQ_BLOB_BUCKET"
	// EnvBlobPrefix holds the results' key prefix (WorkerProps.BlobPrefix,
	// by default DefaultBlobPrefix); set only with the bucket.
	EnvBlobPrefix = "IDEMQ_BLOB_PREFIX"
	// EnvPrefix starts every variable of the worker's: WorkerProps.Environment
	// takes none, so that none bypasses the checks made at synth.
	EnvPrefix = "IDEMQ_"
)

// setByWorker are the names a Worker sets itself.
var setByWorker = []string{EnvTable, EnvRecordExpiry, EnvKeyField, EnvNamespace, EnvBackoff, EnvProviderAPIKeySecret, EnvQueue, EnvEMFNamespace, EnvBlobBucket, EnvBlobPrefix, EnvTracing}

// checkEnvName refuses a name of WorkerProps.Environment that starts with
// EnvPrefix, saying what to set instead.
func checkEnvName(name string, label func(field string) string) error {
	if !strings.HasPrefix(name, EnvPrefix) {
		return nil
	}
	var why string
	switch {
	case name == EnvProviderAPIKey:
		why = fmt.Sprintf("which would deploy the API key in plain text in the function's configuration; store it in a Secrets Manager secret and set %s",
			label("ProviderAPIKeySecret"))
	case name == EnvProviderURL:
		why = fmt.Sprintf("which the Worker sets itself from %s once checked; set that instead", label("ProviderURL"))
	case slices.Contains(setByWorker, name):
		why = "which the Worker sets itself; remove it"
	default:
		why = fmt.Sprintf("a worker's setting (every %s variable is reserved): the Worker sets the ones it supports from its props once they are checked against the queue, "+
			"and one set here would bypass those checks (%s, for one, decides how long a crashed worker's message waits, which the checks of the receives and retention assume); remove it",
			EnvPrefix, "IDEMQ_LEASE")
	}
	return &SettingError{Field: "Environment", Msg: fmt.Sprintf("%s sets %s, %s", label("Environment"), name, why)}
}
