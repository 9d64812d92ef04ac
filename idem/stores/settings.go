package stores

// The kinds of store Settings.Kind names (IDEMQ_STORE).
const (
	DynamoDB = "dynamodb"
	Postgres = "postgres"
	Redis    = "redis"
	Memory   = "memory" // records live as long as the process
)

// Settings name the store of records.
type Settings struct {
	// Kind is IDEMQ_STORE, in lower case: DynamoDB, Postgres, Redis or
	// Memory. Defaults to DynamoDB.
	Kind string
	// Table is IDEMQ_TABLE: the DynamoDB or PostgreSQL table of records,
	// required with those stores; on Redis the key prefix, which the
	// opener ends with ":".
	Table string
	// URL is IDEMQ_STORE_URL: the postgres:// or redis:// URL of those
	// stores. It holds the store's password: no message shows it but
	// redacted (ShowURL).
	URL string
	// DynamoDBEndpoint is IDEMQ_DYNAMODB_ENDPOINT, for DynamoDB Local.
	DynamoDBEndpoint string
	// DynamoDBStrong is IDEMQ_DYNAMODB_MULTI_REGION_STRONG: the DynamoDB
	// table is a global table with multi-Region strong consistency.
	DynamoDBStrong bool
}
