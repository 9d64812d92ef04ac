package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
)

// fakeMappings answers ListEventSourceMappings with its pages, or err,
// and keeps the requests.
type fakeMappings struct {
	pages [][]types.EventSourceMappingConfiguration
	err   error
	reqs  []*lambda.ListEventSourceMappingsInput
	ctxs  []context.Context
	left  []time.Duration // how long each request's context had left
}

func (f *fakeMappings) ListEventSourceMappings(ctx context.Context, in *lambda.ListEventSourceMappingsInput, _ ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error) {
	cp := *in
	f.reqs, f.ctxs = append(f.reqs, &cp), append(f.ctxs, ctx)
	if d, ok := ctx.Deadline(); ok {
		f.left = append(f.left, time.Until(d))
	} else {
		f.left = append(f.left, 0)
	}
	if f.err != nil {
		return nil, f.err
	}
	page := 0
	if in.Marker != nil {
		page = int(aws.ToString(in.Marker)[0] - '0')
	}
	out := &lambda.ListEventSourceMappingsOutput{EventSourceMappings: f.pages[page]}
	if page+1 < len(f.pages) {
		out.NextMarker = aws.String(string(rune('0' + page + 1)))
	}
	return out, nil
}

func mapping(uuid, source string, types_ ...types.FunctionResponseType) types.EventSourceMappingConfiguration {
	return types.EventSourceMappingConfiguration{UUID: aws.String(uuid), EventSourceArn: aws.String(source), State: aws.String("Enabled"), FunctionResponseTypes: types_}
}

// logLines runs the check and returns its log lines, parsed.
func logLines(t *testing.T, f *fakeMappings) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	checkMappings(context.Background(), f, "summarise", slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	var lines []map[string]any
	for line := range strings.Lines(buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		lines = append(lines, m)
	}
	return lines
}

func atLevel(lines []map[string]any, level string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["level"] == level {
			out = append(out, l)
		}
	}
	return out
}

// A mapping from an SQS queue without ReportBatchItemFailures is named in
// one error; one with it, and a mapping from another source, are not.
// Every page of mappings is read, by the function's name.
func TestCheckMappingsNamesTheMappingWithoutReportBatchItemFailures(t *testing.T) {
	t.Parallel()
	f := &fakeMappings{pages: [][]types.EventSourceMappingConfiguration{
		{mapping("with", "arn:aws:sqs:eu-west-1:123456789012:jobs", types.FunctionResponseTypeReportBatchItemFailures)},
		{mapping("stream", "arn:aws:kinesis:eu-west-1:123456789012:stream/s"),
			mapping("without", "arn:aws:sqs:eu-west-1:123456789012:old-jobs")},
	}}
	lines := logLines(t, f)
	errs := atLevel(lines, "ERROR")
	if len(errs) != 1 || errs[0]["mapping"] != "without" || errs[0]["queue"] != "arn:aws:sqs:eu-west-1:123456789012:old-jobs" ||
		!strings.Contains(errs[0]["msg"].(string), "ReportBatchItemFailures") {
		t.Fatalf("errors %v; want one naming the mapping without ReportBatchItemFailures (all: %v)", errs, lines)
	}
	if len(f.reqs) != 2 || aws.ToString(f.reqs[0].FunctionName) != "summarise" || aws.ToString(f.reqs[1].Marker) != "1" {
		t.Fatalf("requests %+v; want two pages for the function", f.reqs)
	}
	if debug := atLevel(lines, "DEBUG"); len(debug) != 1 || debug[0]["mapping"] != "with" {
		t.Errorf("debug lines %v; want the mapping with it", debug)
	}

	// Every mapping reports batch item failures: no error.
	f = &fakeMappings{pages: [][]types.EventSourceMappingConfiguration{{mapping("with", "arn:aws:sqs:eu-west-1:123456789012:jobs", types.FunctionResponseTypeReportBatchItemFailures)}}}
	if errs := atLevel(logLines(t, f), "ERROR"); len(errs) != 0 {
		t.Errorf("errors %v for a mapping with ReportBatchItemFailures", errs)
	}
}

// A refusal (no right to list mappings) or any other failure is said once
// at INFO, and the check returns: it never stops a worker.
func TestCheckMappingsGoesOnWhenItCannotRead(t *testing.T) {
	t.Parallel()
	f := &fakeMappings{err: &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized to perform: lambda:ListEventSourceMappings"}}
	lines := logLines(t, f)
	if len(lines) != 1 || lines[0]["level"] != "INFO" || !strings.Contains(lines[0]["err"].(string), "AccessDenied") ||
		!strings.Contains(lines[0]["msg"].(string), "lambda:ListEventSourceMappings") {
		t.Fatalf("log %v; want one INFO line naming the right and the error", lines)
	}
	if len(f.reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(f.reqs))
	}
}

// The check has a deadline of its own: a Lambda API that does not answer
// costs the cold start at most mappingCheckTimeout.
func TestCheckMappingsHasADeadline(t *testing.T) {
	t.Parallel()
	f := &fakeMappings{err: context.DeadlineExceeded}
	lines := logLines(t, f)
	deadline, ok := f.ctxs[0].Deadline()
	if !ok || f.left[0] > mappingCheckTimeout || f.left[0] <= 0 {
		t.Fatalf("the request's deadline %v (set %v) was %s away, want at most %s", deadline, ok, f.left[0], mappingCheckTimeout)
	}
	if len(lines) != 1 || lines[0]["level"] != "INFO" {
		t.Fatalf("log %v; want one INFO line", lines)
	}
}

// On Lambda, a worker whose mapping from the queue lacks
// ReportBatchItemFailures fails a batch from that queue with a record that
// comes back, so that Lambda brings the whole batch back rather than
// delete the record's message with the rest; with the mapping reporting
// them, the same batch answers with the partial response alone.
func TestWorkerFailsTheWholeBatchWithoutReportBatchItemFailures(t *testing.T) {
	defer func(name string) { lambdacontext.FunctionName = name }(lambdacontext.FunctionName)
	lambdacontext.FunctionName = "summarise"
	const jobs = "arn:aws:sqs:us-east-1:123456789012:jobs"
	fn := func(_ context.Context, m events.SQSMessage) ([]byte, error) {
		if strings.Contains(m.Body, "bad") {
			return nil, errors.New("the provider answered 500")
		}
		return []byte("ok"), nil
	}
	env := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false"}
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m0", ReceiptHandle: "r0", EventSourceARN: jobs, Body: `{"idempotency_key":"k0"}`},
		{MessageId: "m1", ReceiptHandle: "r1", EventSourceARN: jobs, Body: `{"idempotency_key":"k1","bad":true}`},
	}}
	for _, tc := range []struct {
		name      string
		responses []types.FunctionResponseType
		wantErr   bool
	}{
		{"without ReportBatchItemFailures", nil, true},
		{"with ReportBatchItemFailures", []types.FunctionResponseType{types.FunctionResponseTypeReportBatchItemFailures}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeMappings{pages: [][]types.EventSourceMappingConfiguration{{mapping("m", jobs, tc.responses...)}}}
			w, err := FromEnv(context.Background(), func(k string) string { return env[k] }, fn,
				WithLambda(f), WithLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			resp, err := w.Handler(context.Background(), ev)
			if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "m1" {
				t.Errorf("batch item failures %v, want m1's", resp.BatchItemFailures)
			}
			if got := err != nil && strings.Contains(err.Error(), "ReportBatchItemFailures"); got != tc.wantErr {
				t.Errorf("invocation error %v; want one naming ReportBatchItemFailures: %v", err, tc.wantErr)
			}
		})
	}
}
