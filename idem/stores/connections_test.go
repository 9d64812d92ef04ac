package stores_test

import (
	"net/http"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/idemq/idemq/idem/stores"
)

func TestKeepConnections(t *testing.T) {
	t.Parallel()
	// The SDK's transport keeps 100 idle connections in all by default: 8
	// invocations of 100 records need 800.
	for _, hc := range []*awshttp.BuildableClient{awshttp.NewBuildableClient(), nil} {
		var in any = hc
		if hc == nil {
			in = nil
		}
		got, ok := stores.KeepConnections(asClient(in), 800).(*awshttp.BuildableClient)
		if !ok {
			t.Fatalf("KeepConnections(%T) is not the SDK's client", in)
		}
		if tr := got.GetTransport(); tr.MaxIdleConnsPerHost != 800 || tr.MaxIdleConns != 800 {
			t.Errorf("idle connections: %d per host, %d in all; want 800 and 800", tr.MaxIdleConnsPerHost, tr.MaxIdleConns)
		}
	}
	custom := &http.Client{}
	if hc := stores.KeepConnections(custom, 100); hc != custom {
		t.Errorf("another client was replaced: %T", hc)
	}
	sdk := awshttp.NewBuildableClient()
	if hc := stores.KeepConnections(sdk, 0); hc != sdk {
		t.Errorf("n 0 changed the client")
	}
}

// asClient is v as the SDK's interface, nil staying a nil interface.
func asClient(v any) interface {
	Do(*http.Request) (*http.Response, error)
} {
	if v == nil {
		return nil
	}
	return v.(*awshttp.BuildableClient)
}
