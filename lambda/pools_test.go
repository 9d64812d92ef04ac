package main

import (
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

func TestKeepConnectionsInAll(t *testing.T) {
	t.Parallel()
	// The SDK's transport keeps 100 idle connections in all by default: 8
	// invocations of 100 records need 800.
	tr := keepConnections(awshttp.NewBuildableClient(), 800).(*awshttp.BuildableClient).GetTransport()
	if tr.MaxIdleConnsPerHost != 800 || tr.MaxIdleConns != 800 {
		t.Errorf("idle connections: %d per host, %d in all; want 800 and 800", tr.MaxIdleConnsPerHost, tr.MaxIdleConns)
	}
}
