// Package testenv holds what the repository's own tests share about
// their servers and data: the variables scripts/with-s3.sh and
// scripts/with-sqs.sh export, and the prose results are measured on. A
// test that needs a server reads its variable with ServerURL (which
// idemtest.ServerURL, the stores' kits' own, wraps).
package testenv

// The variables the test servers (scripts/with-*.sh) export where they
// listen. PostgreSQL's and Redis's are pgtest.URLEnv and redistest.URLEnv;
// DynamoDB Local's is the worker's own setting, "IDEMQ_DYNAMODB_ENDPOINT".
const (
	S3Endpoint  = "IDEMQ_TEST_S3_ENDPOINT"  // scripts/with-s3.sh (moto's S3)
	SQSEndpoint = "IDEMQ_TEST_SQS_ENDPOINT" // scripts/with-sqs.sh (moto's SQS)
)
