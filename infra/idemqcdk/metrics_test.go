package idemqcdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// TestMetricsAreTheHandlers checks that every metric of MetricNamespace the
// stack's alarms and dashboard read is one the handler writes with WithEMF,
// as the worker does with IDEMQ_EMF_NAMESPACE, under the dimension Service
// set to the key namespace: a metric renamed in the handler would leave an
// alarm that never goes off.
func TestMetricsAreTheHandlers(t *testing.T) {
	var emf bytes.Buffer
	h := must(handler.New(must(memstore.New()), func(context.Context, events.SQSMessage) ([]byte, error) { return nil, errors.New("provider: 429") },
		handler.WithRequest(request.Identity{Namespace: "idemq"}), handler.WithEMF(&emf, idemqcdk.MetricNamespace), handler.WithLogger(slog.New(slog.DiscardHandler))))
	if _, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{
		MessageId: "m1", Body: `{"idempotency_key":"k1"}`, EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q",
	}}}); err != nil && !errors.Is(err, handler.ErrBatchFailed) { // the batch's one record failed: so does the invocation
		t.Fatal(err)
	}
	var line struct {
		Service string  `json:"Service"`
		Failed  float64 `json:"Failed"`
		AWS     struct {
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name string }
			}
		} `json:"_aws"`
	}
	if err := json.Unmarshal(emf.Bytes(), &line); err != nil || len(line.AWS.CloudWatchMetrics) != 1 {
		t.Fatalf("the handler's EMF line %q: %v", emf.String(), err)
	}
	cw := line.AWS.CloudWatchMetrics[0]
	if cw.Namespace != idemqcdk.MetricNamespace || line.Service != "idemq" || !slices.EqualFunc(cw.Dimensions, [][]string{{"Service"}}, slices.Equal) {
		t.Errorf("EMF namespace %q, dimensions %v, Service %q; want %q, [[Service]], the key namespace", cw.Namespace, cw.Dimensions, line.Service, idemqcdk.MetricNamespace)
	}
	if line.Failed != 1 {
		t.Errorf("Failed = %v for one failed record, want 1", line.Failed)
	}
	var written []string
	for _, m := range cw.Metrics {
		written = append(written, m.Name)
	}

	tpl := synth(t, nil)
	var read []string
	for _, a := range *tpl.FindResources(jsii.String("AWS::CloudWatch::Alarm"), nil) {
		if props := (*a)["Properties"].(obj); props["Namespace"] == idemqcdk.MetricNamespace {
			read = append(read, props["MetricName"].(string))
		}
	}
	for _, w := range list(dashboardBody(t, tpl)["widgets"]) {
		props, _ := w.(obj)["properties"].(obj)
		for _, m := range list(props["metrics"]) {
			if m, _ := m.(arr); len(m) > 1 && m[0] == idemqcdk.MetricNamespace {
				read = append(read, m[1].(string))
			}
		}
	}
	if len(read) == 0 {
		t.Fatal("the stack reads no metric of its namespace")
	}
	for _, name := range read {
		if !slices.Contains(written, name) {
			t.Errorf("the stack reads %s/%s, which the handler does not write (it writes %v)", idemqcdk.MetricNamespace, name, written)
		}
	}
}
