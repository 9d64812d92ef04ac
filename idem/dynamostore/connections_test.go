package dynamostore_test

import (
	"net/http"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem/dynamostore"
)

func TestKeepConnections(t *testing.T) {
	transport := func(t *testing.T, o dynamodb.Options) *http.Transport {
		t.Helper()
		b, ok := o.HTTPClient.(*awshttp.BuildableClient)
		if !ok {
			t.Fatalf("HTTPClient is %T, want *awshttp.BuildableClient", o.HTTPClient)
		}
		return b.GetTransport()
	}
	t.Run("default client", func(t *testing.T) {
		var o dynamodb.Options
		dynamostore.KeepConnections(250)(&o)
		tr := transport(t, o)
		if tr.MaxIdleConnsPerHost != 250 || tr.MaxIdleConns != 250 {
			t.Errorf("idle connections per host %d, in all %d; want 250, 250", tr.MaxIdleConnsPerHost, tr.MaxIdleConns)
		}
	})
	t.Run("never lowers", func(t *testing.T) {
		var o dynamodb.Options
		dynamostore.KeepConnections(2)(&o)
		tr := transport(t, o)
		if tr.MaxIdleConnsPerHost != awshttp.DefaultHTTPTransportMaxIdleConnsPerHost || tr.MaxIdleConns != awshttp.DefaultHTTPTransportMaxIdleConns {
			t.Errorf("idle connections per host %d, in all %d; want the SDK's %d, %d", tr.MaxIdleConnsPerHost, tr.MaxIdleConns,
				awshttp.DefaultHTTPTransportMaxIdleConnsPerHost, awshttp.DefaultHTTPTransportMaxIdleConns)
		}
	})
	t.Run("keeps the buildable client's other settings", func(t *testing.T) {
		o := dynamodb.Options{HTTPClient: awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.DisableCompression = true
		})}
		dynamostore.KeepConnections(64)(&o)
		tr := transport(t, o)
		if !tr.DisableCompression || tr.MaxIdleConnsPerHost != 64 {
			t.Errorf("DisableCompression %v, idle per host %d; want true, 64", tr.DisableCompression, tr.MaxIdleConnsPerHost)
		}
	})
	t.Run("leaves an unlimited pool unlimited", func(t *testing.T) {
		o := dynamodb.Options{HTTPClient: awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.MaxIdleConns = 0
		})}
		dynamostore.KeepConnections(64)(&o)
		if tr := transport(t, o); tr.MaxIdleConns != 0 || tr.MaxIdleConnsPerHost != 64 {
			t.Errorf("idle connections in all %d, per host %d; want 0 (no limit), 64", tr.MaxIdleConns, tr.MaxIdleConnsPerHost)
		}
	})
	t.Run("leaves a client of another type", func(t *testing.T) {
		custom := &http.Client{}
		o := dynamodb.Options{HTTPClient: custom}
		dynamostore.KeepConnections(64)(&o)
		if o.HTTPClient != custom {
			t.Errorf("HTTPClient replaced: %T", o.HTTPClient)
		}
	})
	t.Run("leaves the client below 1", func(t *testing.T) {
		custom := awshttp.NewBuildableClient()
		o := dynamodb.Options{HTTPClient: custom}
		dynamostore.KeepConnections(0)(&o)
		if o.HTTPClient != custom {
			t.Errorf("KeepConnections(0) replaced the client: %T", o.HTTPClient)
		}
	})
}
