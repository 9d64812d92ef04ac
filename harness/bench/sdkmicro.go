package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/handler"
)

// The implementations an SDK micro-benchmark runs, by the name it gives
// them under BenchmarkSDK.
const (
	SDKFloor  = "floor"
	SDKFenced = "fenced"
	SDKIdemq  = "idemq"
)

// SDKMicros returns the micro-benchmarks of first delivery through the
// DynamoDB SDK with no server: the raw-SDK floor, the fenced floor and
// idemq (over dynamostore, with its defaults) each run a batch with one
// DynamoDB client whose HTTP transport answers every request at once with
// an empty success, so each record's claim and completion go through the
// whole SDK stack — serialization, signing, retries, deserialization — and
// nothing else is measured. idemq's figure over the fenced floor's, which
// sends the same requests, is the library's own cost, without DynamoDB
// Local's noise; benchstat compares it across commits. Each runs
// handler.DefaultConcurrency records at once.
func SDKMicros() []Micro {
	var out []Micro
	for _, size := range MicroSizes {
		for _, impl := range []string{SDKFloor, SDKFenced, SDKIdemq} {
			out = append(out, Micro{Name: fmt.Sprintf("%s/batch=%d", impl, size), Records: size, Bench: sdkBench(impl, size)})
		}
	}
	return out
}

// answerAtOnce is an HTTP transport that reads each request and answers
// it with DynamoDB's empty success.
type answerAtOnce struct{}

func (answerAtOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:    io.NopCloser(bytes.NewReader([]byte("{}"))),
		Request: r}, nil
}

// serverlessClient is a DynamoDB client built as newClient builds the
// measured ones, over answerAtOnce.
func serverlessClient() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String("http://127.0.0.1:8000"),
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, accessKey, ""),
		HTTPClient:   &http.Client{Transport: answerAtOnce{}},
	})
}

func sdkBench(impl string, size int) func(*testing.B) {
	return func(b *testing.B) {
		t := NewTrial(First, "00000000", size, size, 0)
		ev := t.Batches[0]
		client := serverlessClient()
		var calls atomic.Int64
		work := model(0, &calls)
		var h Handler
		switch impl {
		case SDKFloor:
			h = floorHandler(client, "bench", work, handler.DefaultConcurrency, false)
		case SDKFenced:
			h = floorHandler(client, "bench", work, handler.DefaultConcurrency, true)
		default:
			var err error
			if h, err = idemqHandler(client, "bench", work, handler.DefaultConcurrency, 0); err != nil {
				b.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), invocationTimeout)
		defer cancel()
		var before, after runtime.MemStats
		b.ReportAllocs()
		runtime.ReadMemStats(&before)
		n := 0
		for b.Loop() {
			resp, err := h(ctx, ev)
			if err != nil || len(resp.BatchItemFailures) > 0 {
				b.Fatalf("%s: %v, %d batch item failures", impl, err, len(resp.BatchItemFailures))
			}
			n++
		}
		runtime.ReadMemStats(&after)
		if got, want := calls.Load(), int64(n*len(ev.Records)); got != want {
			b.Fatalf("%s: the work ran %d times for %d records", impl, got, want)
		}
		reportPerRecord(b, &before, &after, n*len(ev.Records))
	}
}
