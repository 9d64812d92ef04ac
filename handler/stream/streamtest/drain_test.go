package streamtest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler/stream/streamtest"
)

// fake is a Kinesis handler under test: it logs each invocation's
// sequence numbers, and fails as its plan says.
type fake struct {
	mu      sync.Mutex
	batches [][]string
	// report returns the sequence number to report for a batch ("" for
	// none), or an error for a function error.
	report func(batch []string, invocation int) (string, error)
}

func (f *fake) handle(_ context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
	var seqs []string
	for _, r := range ev.Records {
		seqs = append(seqs, r.Kinesis.SequenceNumber)
	}
	f.mu.Lock()
	f.batches = append(f.batches, seqs)
	n := len(f.batches)
	f.mu.Unlock()
	var resp events.KinesisEventResponse
	if f.report == nil {
		return resp, nil
	}
	at, err := f.report(seqs, n)
	if err != nil {
		return resp, err
	}
	if at != "" {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.KinesisBatchItemFailure{ItemIdentifier: at})
	}
	return resp, nil
}

// deliveries counts how often each sequence number was sent.
func (f *fake) deliveries() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := map[string]int{}
	for _, b := range f.batches {
		for _, s := range b {
			n[s]++
		}
	}
	return n
}

func (f *fake) sizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for _, b := range f.batches {
		out = append(out, len(b))
	}
	return out
}

func fill(n int) (*streamtest.Shard, []string) {
	var s streamtest.Shard
	seqs := make([]string, n)
	for i := range n {
		seqs[i] = s.Put(fmt.Sprintf("pk%d", i%3), fmt.Appendf(nil, `{"idempotency_key":"k%d"}`, i))
	}
	return &s, seqs
}

func TestShardSequenceNumbersIncrease(t *testing.T) {
	t.Parallel()
	s, seqs := fill(12)
	if !slices.IsSorted(seqs) {
		t.Errorf("sequence numbers %v do not increase", seqs)
	}
	recs, err := s.Read(t.Context(), seqs[3], 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || recs[0].Kinesis.SequenceNumber != seqs[4] || recs[0].Kinesis.PartitionKey != "pk1" {
		t.Errorf("Read after %s: %d records from %+v; want 5 from %s", seqs[3], len(recs), recs[0].Kinesis, seqs[4])
	}
	if _, err := s.Read(t.Context(), "42", 5); err == nil {
		t.Error("Read after a sequence number the shard never gave: no error")
	}
}

func TestBatchesOfBatchSize(t *testing.T) {
	t.Parallel()
	s, _ := fill(25)
	f := &fake{}
	res, err := streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.sizes(); !slices.Equal(got, []int{10, 10, 5}) {
		t.Errorf("batch sizes %v; want [10 10 5]", got)
	}
	if res.Invocations != 3 || len(res.OnFailure) != 0 {
		t.Errorf("result %+v; want 3 invocations, no failure", res)
	}
}

// A reported record is where the shard resumes: the records before it
// are checkpointed (sent once), those from it on come again.
func TestResumesFromTheReportedRecord(t *testing.T) {
	t.Parallel()
	s, seqs := fill(10)
	f := &fake{report: func(batch []string, n int) (string, error) {
		if n == 1 {
			return seqs[4], nil
		}
		return "", nil
	}}
	res, err := streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{BatchSize: 10, MaximumRetryAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.batches) != 2 || !slices.Equal(f.batches[1], seqs[4:]) {
		t.Fatalf("batches %v; want all ten, then from %s on", f.batches, seqs[4])
	}
	for i, seq := range seqs {
		want := 1 + min(1, i/4)
		if got := f.deliveries()[seq]; got != want {
			t.Errorf("record %d sent %d times; want %d", i, got, want)
		}
	}
	if res.Checkpoint != seqs[9] {
		t.Errorf("checkpoint %s; want the last record's, %s", res.Checkpoint, seqs[9])
	}
}

// Lambda checkpoints at the lowest reported sequence number; a response
// naming a record the batch does not hold (or none) fails the whole
// batch.
func TestResponses(t *testing.T) {
	t.Parallel()
	s, seqs := fill(6)
	f := &fake{report: func(batch []string, n int) (string, error) {
		switch n {
		case 1:
			return "no-such-record", nil
		case 2:
			return "", nil
		}
		return "", nil
	}}
	res, err := streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{MaximumRetryAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.sizes(); !slices.Equal(got, []int{6, 6}) {
		t.Errorf("batch sizes %v; want [6 6]: a response naming no record of the batch sends it whole again", got)
	}
	if res.Checkpoint != seqs[5] {
		t.Errorf("checkpoint %s; want %s", res.Checkpoint, seqs[5])
	}

	two := func(_ context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
		var resp events.KinesisEventResponse
		if len(ev.Records) == 6 {
			resp.BatchItemFailures = []events.KinesisBatchItemFailure{{ItemIdentifier: seqs[4]}, {ItemIdentifier: seqs[2]}}
		}
		return resp, nil
	}
	var sizes []int
	res, err = streamtest.Drain(t.Context(), s, func(ctx context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
		sizes = append(sizes, len(ev.Records))
		return two(ctx, ev)
	}, streamtest.Mapping{MaximumRetryAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sizes, []int{6, 4}) {
		t.Errorf("batch sizes %v; want [6 4]: two records reported, the shard resumes from the earlier", sizes)
	}
}

// A function error sends the whole batch again, up to
// MaximumRetryAttempts times; then its metadata goes to the on-failure
// list and the shard goes on.
func TestFunctionErrorRetriesTheWholeBatchBounded(t *testing.T) {
	t.Parallel()
	s, seqs := fill(8)
	f := &fake{report: func(batch []string, n int) (string, error) {
		if slices.Contains(batch, seqs[2]) {
			return "", errors.New("the function crashed")
		}
		return "", nil
	}}
	res, err := streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{BatchSize: 4, MaximumRetryAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.sizes(); !slices.Equal(got, []int{4, 4, 4, 4}) {
		t.Errorf("batch sizes %v; want [4 4 4 4]: the failing batch three times (two retries), then the next", got)
	}
	want := []streamtest.Failure{{Condition: "RetryAttemptsExhausted", StartSequenceNumber: seqs[0], EndSequenceNumber: seqs[3], BatchSize: 4, ApproximateInvokeCount: 3}}
	if got := clearTimes(res.OnFailure); !slices.Equal(got, want) {
		t.Errorf("on failure %+v; want %+v", got, want)
	}
	if d := f.deliveries(); d[seqs[4]] != 1 || res.Checkpoint != seqs[7] {
		t.Errorf("after giving up: record 4 sent %d times, checkpoint %s; want once, %s", d[seqs[4]], res.Checkpoint, seqs[7])
	}
}

// Lambda's default, -1: a failing batch is retried without end, until
// ctx ends the drain.
func TestUnboundedRetriesEndWithTheContext(t *testing.T) {
	t.Parallel()
	s, _ := fill(2)
	ctx, cancel := context.WithCancel(t.Context())
	f := &fake{report: func(batch []string, n int) (string, error) {
		if n == 50 {
			cancel()
		}
		return "", errors.New("the function crashed")
	}}
	res, err := streamtest.Drain(ctx, s, f.handle, streamtest.Mapping{MaximumRetryAttempts: -1})
	if !errors.Is(err, context.Canceled) || res.Invocations != 50 || len(res.OnFailure) != 0 {
		t.Errorf("Drain = %+v, %v; want 50 invocations, no failure, context.Canceled", res, err)
	}
}

// BisectBatchOnFunctionError splits a failing batch until the failing
// record is alone; the split is no retry attempt; the other records run
// once each.
func TestBisectIsolatesTheFailingRecord(t *testing.T) {
	t.Parallel()
	s, seqs := fill(8)
	f := &fake{report: func(batch []string, n int) (string, error) {
		if slices.Contains(batch, seqs[2]) {
			return "", errors.New("the function crashed")
		}
		return "", nil
	}}
	res, err := streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{BatchSize: 8, BisectBatchOnFunctionError: true, MaximumRetryAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	// [0..7] fails → [0..3] fails → [0 1] ok, [2 3] fails → [2] fails, [2] again (the retry), gives up → [3] ok → [4..7] ok.
	if got, want := f.sizes(), []int{8, 4, 2, 2, 1, 1, 1, 4}; !slices.Equal(got, want) {
		t.Errorf("batch sizes %v; want %v", got, want)
	}
	want := []streamtest.Failure{{Condition: "RetryAttemptsExhausted", StartSequenceNumber: seqs[2], EndSequenceNumber: seqs[2], BatchSize: 1, ApproximateInvokeCount: 2}}
	if got := clearTimes(res.OnFailure); !slices.Equal(got, want) {
		t.Errorf("on failure %+v; want %+v", got, want)
	}
	if res.Checkpoint != seqs[7] {
		t.Errorf("checkpoint %s; want %s", res.Checkpoint, seqs[7])
	}
}

// A bisected half that reports a record resumes from it, within the
// half, before the next half.
func TestBisectedHalfResumesFromItsReportedRecord(t *testing.T) {
	t.Parallel()
	s, seqs := fill(8)
	f := &fake{report: func(batch []string, n int) (string, error) {
		switch {
		case len(batch) == 8:
			return "", errors.New("the function crashed")
		case n == 2: // the first half: resume from record 2
			return seqs[2], nil
		}
		return "", nil
	}}
	if _, err := streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{BisectBatchOnFunctionError: true, MaximumRetryAttempts: 1}); err != nil {
		t.Fatal(err)
	}
	want := [][]string{seqs, seqs[:4], seqs[2:4], seqs[4:]}
	if !slices.EqualFunc(f.batches, want, slices.Equal) {
		t.Errorf("batches %v; want %v", f.batches, want)
	}
}

// MaximumRecordAge discards the records older than it before an
// invocation, to the on-failure list, and ends a batch's retries when
// its records age past it.
func TestRecordAge(t *testing.T) {
	t.Parallel()
	s, seqs := fill(4)
	f := &fake{}
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	res, err := streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{MaximumRecordAge: time.Hour, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	want := []streamtest.Failure{{Condition: "RecordAgeExceeded", StartSequenceNumber: seqs[0], EndSequenceNumber: seqs[3], BatchSize: 4}}
	if got := clearTimes(res.OnFailure); len(f.batches) != 0 || !slices.Equal(got, want) {
		t.Errorf("%d invocations, on failure %+v; want none, %+v", len(f.batches), got, want)
	}

	// The clock moves an hour at each invocation: the failing batch's
	// third try finds its records too old.
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f = &fake{report: func([]string, int) (string, error) {
		mu.Lock()
		now = now.Add(time.Hour)
		mu.Unlock()
		return "", errors.New("the function crashed")
	}}
	res, err = streamtest.Drain(t.Context(), s, f.handle, streamtest.Mapping{MaximumRetryAttempts: -1, MaximumRecordAge: 90 * time.Minute, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.batches) != 2 || len(res.OnFailure) != 1 || res.OnFailure[0].Condition != "RecordAgeExceeded" || res.OnFailure[0].BatchSize != 4 || res.Checkpoint != seqs[3] {
		t.Errorf("%d invocations, result %+v; want 2, then the batch's records discarded by age", len(f.batches), res)
	}
	if !res.OnFailure[0].ApproximateArrivalOfFirstRecord.Equal(mustArrival(t, s, "")) {
		t.Errorf("on failure: first arrival %v; want the first record's", res.OnFailure[0].ApproximateArrivalOfFirstRecord)
	}
}

func TestHandlerOfAnotherSource(t *testing.T) {
	t.Parallel()
	s, _ := fill(1)
	ddb := func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		return events.DynamoDBEventResponse{}, nil
	}
	if _, err := streamtest.Drain(t.Context(), s, ddb, streamtest.Mapping{}); err == nil || !strings.Contains(err.Error(), "DynamoDB") {
		t.Errorf("a DynamoDB handler on a Kinesis shard: %v; want an error", err)
	}
}

func mustArrival(t *testing.T, s *streamtest.Shard, after string) time.Time {
	t.Helper()
	recs, err := s.Read(t.Context(), after, 1)
	if err != nil || len(recs) == 0 {
		t.Fatalf("Read: %v, %d records", err, len(recs))
	}
	return recs[0].Kinesis.ApproximateArrivalTimestamp.Time
}

func clearTimes(fs []streamtest.Failure) []streamtest.Failure {
	out := slices.Clone(fs)
	for i := range out {
		out[i].ApproximateArrivalOfFirstRecord, out[i].ApproximateArrivalOfLastRecord = time.Time{}, time.Time{}
	}
	return out
}
