package main

import (
	"net/http"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

func TestKeepConnections(t *testing.T) {
	t.Parallel()
	hc := keepConnections(awshttp.NewBuildableClient(), 100)
	if n := hc.(*awshttp.BuildableClient).GetTransport().MaxIdleConnsPerHost; n != 100 {
		t.Errorf("SDK client: %d idle connections per host, want 100", n)
	}
	custom := &http.Client{}
	if hc := keepConnections(custom, 100); hc != custom {
		t.Errorf("another client was replaced: %T", hc)
	}
}
