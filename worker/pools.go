package worker

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// keepConnections returns hc keeping up to n idle connections per host,
// and in all, when it is the SDK's own client (LoadDefaultConfig's);
// another client is returned as it is.
func keepConnections(hc aws.HTTPClient, n int) aws.HTTPClient {
	b, ok := hc.(*awshttp.BuildableClient)
	if !ok {
		return hc
	}
	return b.WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, n)
		if t.MaxIdleConns != 0 { // 0: no limit
			t.MaxIdleConns = max(t.MaxIdleConns, n)
		}
	})
}
