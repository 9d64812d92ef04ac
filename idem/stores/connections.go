package stores

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// KeepConnections returns hc keeping up to n idle connections per host,
// and in all, for n requests under way at once: the one place that sizes
// an AWS SDK client's transport, for the DynamoDB store's client
// (dynamostore.KeepConnections) and the worker's SQS, S3 and Lambda
// clients. It changes the SDK's own client (nil stands for the SDK's
// default, awshttp.NewBuildableClient); a client of another type, or n
// below 1, leaves hc as it is. The SDK's client keeps 10 idle connections
// per host and 100 in all: past them, each request more opens a
// connection (a TCP and TLS handshake) and closes it after its answer.
func KeepConnections(hc aws.HTTPClient, n int) aws.HTTPClient {
	if n < 1 {
		return hc
	}
	var b *awshttp.BuildableClient
	switch c := hc.(type) {
	case nil:
		b = awshttp.NewBuildableClient()
	case *awshttp.BuildableClient:
		b = c
	default:
		return hc
	}
	return b.WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, n)
		if t.MaxIdleConns != 0 { // 0: no limit
			t.MaxIdleConns = max(t.MaxIdleConns, n)
		}
	})
}
