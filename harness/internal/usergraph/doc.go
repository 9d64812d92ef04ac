// Package usergraph tests what a user's module pays for importing the
// library: a throwaway module that imports handler and idem/dynamostore,
// or the worker's contract (package worker), tidied against the working
// tree, must list none of the other drivers' requirements (pgx, go-redis,
// and for the first S3), nor Secrets Manager, nor the library's test-only
// ones (jcs) in go mod graph.
package usergraph
