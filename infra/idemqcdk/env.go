package idemqcdk

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
)

// reservedEnv are the names a Worker sets itself.
var reservedEnv = []string{EnvTable, EnvRecordExpiry, EnvKeyField, EnvNamespace, EnvBackoff, EnvProviderURL, EnvProviderAPIKeySecret}
