package dynamostore

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem/stores"
)

// KeepConnections returns a client option that keeps up to n idle
// connections to DynamoDB open, for a handler that runs n records at once.
// Pass it when the client is made, not to a single request (which would
// build a transport, and a connection pool, for that request alone):
//
//	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(handler.DefaultConcurrency))
//
// The SDK's HTTP client keeps 10 idle connections per host; past 10
// requests at once, each extra one opens a connection (a TCP and TLS
// handshake) and closes it after its answer. The option changes the SDK's
// own client (the default, or one already built with
// awshttp.NewBuildableClient); a client of another type is left as it is.
// With n below 1 it leaves the client as it is.
func KeepConnections(n int) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.HTTPClient = stores.KeepConnections(o.HTTPClient, n) }
}
