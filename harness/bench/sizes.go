package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/s3blob"
	"github.com/idemq/idemq/internal/testenv"
	"github.com/idemq/idemq/request"
)

// S3EndpointEnv names the environment variable holding the local S3
// server's URL, as scripts/with-s3.sh exports it.
const S3EndpointEnv = testenv.S3Endpoint

// The sides the size scenarios compare.
const (
	// SideInline is idemq storing every result as it is in the record:
	// idem.Config.CompressAbove -1, no blob store.
	SideInline = "idemq-inline"
	// SideGzip is idemq's defaults without a bucket: results over
	// idem.DefaultCompressAbove gzipped, all kept in the record.
	SideGzip = "idemq-gzip"
	// SideDefault is idemq's defaults with a bucket, as the worker runs
	// when the stack passes it one: gzip over idem.DefaultCompressAbove,
	// and a stored result over idem.DefaultOffloadAbove put in S3
	// (idem/s3blob) behind a pointer.
	SideDefault = "idemq-default"
	// SideOffloadAll is idemq gzipping as by default and putting every
	// stored result over 1 byte in S3: with SideGzip, it shows where
	// offloading starts to pay.
	SideOffloadAll = "idemq-s3-all"
	// SidePowertools is Powertools TS, which stores the response inline,
	// as JSON.
	SidePowertools = RunnerPowertools
)

// Sides lists the sides in report order.
var Sides = []string{SideInline, SideGzip, SideDefault, SideOffloadAll, SidePowertools}

// sideOptions are the idem options of each of idemq's sides; blobs says
// whether it is given the bucket.
var sideOptions = map[string]struct {
	opts  []idem.Option
	blobs bool
}{
	SideInline:     {opts: []idem.Option{func(c *idem.Config) { c.CompressAbove = -1 }}},
	SideGzip:       {},
	SideDefault:    {blobs: true},
	SideOffloadAll: {opts: []idem.Option{func(c *idem.Config) { c.OffloadAbove = 1 }}, blobs: true},
}

// ResultSizes are the answer sizes of the size scenarios, in bytes: 1, 4,
// 16, 64 and 256 KiB, 1 and 4 MiB.
var ResultSizes = []int{1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20}

// SizeConfig says what MeasureSizes measures.
type SizeConfig struct {
	// Endpoint is DynamoDB Local's URL; S3Endpoint the local S3 server's
	// (moto's, path-style). Both are required.
	Endpoint, S3Endpoint string
	// Sizes are the answer sizes in bytes. Defaults to ResultSizes.
	Sizes []int
	// Records is how many records each side runs at each size, each
	// delivered twice (a first delivery, then a duplicate). The counts
	// are deterministic (units, bytes, requests), so a few hundred
	// suffice. Defaults to 200.
	Records int
	// RecordBytes bounds the answers one side returns at one size: at a
	// size where Records answers would be more, it runs RecordBytes /
	// size records, at least 20. Defaults to 64 MiB (64 records of
	// 1 MiB, 20 of 4 MiB): the counts per record do not need more, and
	// gzipping hundreds of 4 MiB answers takes minutes.
	RecordBytes int
	// BatchSize is the records per SQS batch. Defaults to 10 (the SQS
	// event source's default).
	BatchSize int
	// DuplicateRate is the duplicates per record the costs assume: 0.1
	// when one record in ten is delivered twice. Defaults to 0.1; a
	// negative value is 0.
	DuplicateRate float64
	// AnswerBytes bounds the distinct answers of one size: as many as
	// the records, at most AnswerBytes of them together (records share
	// them round-robin). Defaults to 32 MiB.
	AnswerBytes int
	// Log receives progress lines. Defaults to io.Discard.
	Log io.Writer
}

func (c *SizeConfig) defaults() {
	if len(c.Sizes) == 0 {
		c.Sizes = ResultSizes
	}
	if c.Records == 0 {
		c.Records = 200
	}
	if c.BatchSize == 0 {
		c.BatchSize = 10
	}
	if c.RecordBytes == 0 {
		c.RecordBytes = 64 << 20
	}
	switch {
	case c.DuplicateRate == 0:
		c.DuplicateRate = 0.1
	case c.DuplicateRate < 0:
		c.DuplicateRate = 0
	}
	if c.AnswerBytes == 0 {
		c.AnswerBytes = 32 << 20
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// SizeResults is what MeasureSizes measured.
type SizeResults struct {
	Started, Ended time.Time
	Records        int     // records per side and size (fewer at the largest: SizeMeasurement.First.Records)
	BatchSize      int     // records per batch
	DuplicateRate  float64 // duplicates per record the costs assume
	// ItemLifetime is how long a record is kept (idem.DefaultExpiry);
	// ObjectLifetime how long the stack's lifecycle rule keeps its object.
	ItemLifetime, ObjectLifetime time.Duration
	ProseFile                    string // where the answers were cut from
	ProseBytes                   int    // its size
	CompressAbove, OffloadAbove  int    // idemq's defaults when measured
	Rows                         []SizeMeasurement
}

// Model is the cost model of the results.
func (r *SizeResults) Model() CostModel {
	return CostModel{DuplicateRate: r.DuplicateRate, ItemLifetime: r.ItemLifetime, ObjectLifetime: r.ObjectLifetime}
}

// Find returns the measurement of side at size.
func (r *SizeResults) Find(side string, size int) (SizeMeasurement, bool) {
	for _, m := range r.Rows {
		if m.Side == side && m.ResultBytes == size {
			return m, true
		}
	}
	return SizeMeasurement{}, false
}

// SizeMeasurement is one side at one answer size: its records delivered
// once (First), then each once more (Dup), on a table of its own.
type SizeMeasurement struct {
	Side        string
	ResultBytes int // each answer's size
	Distinct    int // distinct answers, shared round-robin
	First, Dup  Sample
	// S3First and S3Dup are the S3 requests (attempts) per operation.
	S3First, S3Dup map[string]int
	// StoredBytes and StoredItems: the table's items after both
	// deliveries; ObjectBytes and Objects: the objects in S3.
	StoredBytes, StoredItems int
	ObjectBytes, Objects     int
	// GzipBytes is the mean size of an answer as idemq stores it gzipped
	// (the objects of SideOffloadAll), 0 when not compressed (at or
	// under idem.DefaultCompressAbove) or not measured.
	GzipBytes int
	// Omitted: records idemq completed without their result (too large
	// for the item); Replayed: duplicates answered with their stored
	// result, checked byte for byte against the answer.
	Omitted, Replayed int
	// Error is the first error a record's failure carried (Powertools'
	// when it cannot store the answer).
	Error string
}

// Stored reports whether every record's result was stored and replayed:
// every first delivery completed, every duplicate answered.
func (m SizeMeasurement) Stored() bool {
	return m.First.Failures == 0 && m.Dup.Failures == 0 && m.Omitted == 0 && m.Replayed == m.Dup.Records
}

// PerRecord is the measurement's usage per record.
func (m SizeMeasurement) PerRecord() PerRecord {
	per := func(v float64, n int) float64 {
		if n == 0 {
			return 0
		}
		return v / float64(n)
	}
	f, d := m.First.Records, m.Dup.Records
	u := PerRecord{
		WriteUnits: per(m.First.WriteUnits, f), ReadUnits: per(m.First.ReadUnits, f),
		Puts: per(float64(m.S3First["PutObject"]), f), Gets: per(float64(m.S3First["GetObject"]), f),
		DupWriteUnits: per(m.Dup.WriteUnits, d), DupReadUnits: per(m.Dup.ReadUnits, d),
		DupPuts: per(float64(m.S3Dup["PutObject"]), d), DupGets: per(float64(m.S3Dup["GetObject"]), d),
		ItemBytes: per(float64(m.StoredBytes), m.StoredItems), ObjectBytes: per(float64(m.ObjectBytes), f),
	}
	return u
}

// MeasureSizes runs the size scenarios: for each answer size and side,
// cfg.Records records delivered once, then once more, each answer a
// different slice of prose (Answers). pt is the Powertools driver.
func MeasureSizes(ctx context.Context, cfg SizeConfig, pt *Powertools) (*SizeResults, error) {
	cfg.defaults()
	if cfg.Endpoint == "" {
		return nil, fmt.Errorf("bench: the size scenarios need DynamoDB Local: %s is not set (run under scripts/with-dynamodb.sh)", EndpointEnv)
	}
	if cfg.S3Endpoint == "" {
		return nil, fmt.Errorf("bench: the size scenarios need a local S3: %s is not set (run under scripts/with-s3.sh; make bench does)", S3EndpointEnv)
	}
	text, err := LoadProse()
	if err != nil {
		return nil, err
	}
	res := &SizeResults{Started: time.Now(), Records: cfg.Records - cfg.Records%2, BatchSize: cfg.BatchSize,
		DuplicateRate: cfg.DuplicateRate, ItemLifetime: idem.DefaultExpiry, ObjectLifetime: objectLifetime(idem.DefaultExpiry),
		ProseFile: "$GOROOT/" + ProseFile, ProseBytes: len(text),
		CompressAbove: idem.DefaultCompressAbove, OffloadAbove: idem.DefaultOffloadAbove}
	ddbCounter, s3Counter := NewCounter(), NewCounter()
	s := &sizeSuite{cfg: cfg, pt: pt, admin: newClient(cfg.Endpoint, nil, 0),
		ddb: ddbCounter, s3c: s3Counter, s3admin: newS3Client(cfg.S3Endpoint, nil), bucket: "idemq-bench-sizes-" + newRunID()}
	s.s3 = newS3Client(cfg.S3Endpoint, s3Counter)
	if _, err := s.s3admin.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.bucket)}); err != nil {
		return nil, fmt.Errorf("bench: create bucket %s at %s=%s: %w", s.bucket, S3EndpointEnv, cfg.S3Endpoint, err)
	}
	defer s.deleteBucket()
	for _, size := range cfg.Sizes {
		records := cfg.recordsAt(size)
		distinct := max(1, min(records, cfg.AnswerBytes/size))
		answers := Answers(text, size, distinct)
		from := len(res.Rows)
		for _, side := range Sides {
			m, err := s.measure(ctx, side, size, records, answers)
			if err != nil {
				return nil, fmt.Errorf("bench: %s, answers of %d bytes: %w", side, size, err)
			}
			res.Rows = append(res.Rows, m)
			u := m.PerRecord()
			fmt.Fprintf(cfg.Log, "bench: size %8d  %-14s first %6.2f WU %4.2f PUT  dup %6.2f WU %4.2f GET  item %8.0f B object %8.0f B  failed %d+%d omitted %d replayed %d  $%.2f/M%s\n",
				size, side, u.WriteUnits, u.Puts, u.DupWriteUnits, u.DupGets, u.ItemBytes, u.ObjectBytes,
				m.First.Failures, m.Dup.Failures, m.Omitted, m.Replayed, res.Model().PerMillion(u).Total(), errNote(m.Error))
		}
		// What idemq stores an answer in, measured where it is kept
		// whole: the objects of the side that puts every result in S3.
		if o, ok := res.Find(SideOffloadAll, size); ok && o.Objects > 0 && size > idem.DefaultCompressAbove {
			for i := from; i < len(res.Rows); i++ {
				res.Rows[i].GzipBytes = o.ObjectBytes / o.Objects
			}
		}
	}
	res.Ended = time.Now()
	return res, nil
}

// recordsAt is how many records each side runs at size: Records, fewer
// where their answers would pass RecordBytes, never under 20 (or
// Records, if fewer), always even.
func (c *SizeConfig) recordsAt(size int) int {
	n := min(c.Records, max(c.RecordBytes/size, 20))
	return max(2, n-n%2)
}

// objectLifetime is how long the stack's lifecycle rule keeps an object
// of a record that lives expiry: whole days, rounded up, and one more
// (infra/idemqcdk's blobExpiryDays).
func objectLifetime(expiry time.Duration) time.Duration {
	const day = 24 * time.Hour
	return ((expiry+day-1)/day + 1) * day
}

func errNote(e string) string {
	if e == "" {
		return ""
	}
	first, _, _ := strings.Cut(e, "\n")
	return "  error: " + first
}

// sizeSuite runs the size scenarios.
type sizeSuite struct {
	cfg          SizeConfig
	pt           *Powertools
	admin        *dynamodb.Client
	ddb, s3c     *Counter
	s3, s3admin  *s3.Client
	bucket       string
	ddbByRecords *dynamodb.Client
}

// measure runs side's first deliveries and duplicates of answers of size
// on a table (and, for idemq, an S3 prefix) of its own.
func (s *sizeSuite) measure(ctx context.Context, side string, size, records int, answers [][]byte) (SizeMeasurement, error) {
	run := newRunID()
	m := SizeMeasurement{Side: side, ResultBytes: size, Distinct: len(answers)}
	first := NewTrial(First, run, records, s.cfg.BatchSize, 0)
	first.Table = "idemq-bench-size-" + run
	dup := first
	dup.Batches = nil
	for _, ev := range first.Batches {
		again := events.SQSEvent{Records: make([]events.SQSMessage, len(ev.Records))}
		for i, msg := range ev.Records {
			again.Records[i] = redelivered(msg)
		}
		dup.Batches = append(dup.Batches, again)
	}
	if err := dynamotest.CreateTable(ctx, s.admin, first.Table); err != nil {
		return m, err
	}
	defer func() { _ = deleteTable(context.WithoutCancel(ctx), s.admin, first.Table) }()
	prefix := "idemq/" + run + "/"
	var err error
	if side == SidePowertools {
		err = s.powertools(ctx, &m, first, dup, answers)
	} else {
		err = s.idemq(ctx, &m, side, prefix, first, dup, answers)
	}
	if err != nil {
		return m, err
	}
	if m.StoredBytes, m.StoredItems, err = stored(ctx, s.admin, first.Table); err != nil {
		return m, err
	}
	m.ObjectBytes, m.Objects, err = s.objects(ctx, prefix, true)
	return m, err
}

// powertools runs the two deliveries with the Powertools driver, which
// answers each record with its answer, parsed (Powertools stores the
// object as a DynamoDB map: the same members, without JSON's escapes).
func (s *sizeSuite) powertools(ctx context.Context, m *SizeMeasurement, first, dup Trial, answers [][]byte) error {
	first.Answers, dup.Answers = answers, answers
	var err error
	if m.First, err = s.pt.Run(ctx, first); err != nil {
		return err
	}
	if m.Dup, err = s.pt.Run(ctx, dup); err != nil {
		return err
	}
	m.Replayed = m.Dup.Records - m.Dup.Failures - m.Dup.Executions
	m.Error = m.First.Error
	if d := m.Dup.Error; d != "" && d != m.Error {
		if m.Error != "" {
			m.Error += "; duplicates: "
		}
		m.Error += d
	}
	return nil
}

// idemq runs the two deliveries with handler.New over dynamostore
// with side's options, a replay hook checking every replayed result byte
// for byte, and the run's bucket under prefix when the side offloads.
func (s *sizeSuite) idemq(ctx context.Context, m *SizeMeasurement, side, prefix string, first, dup Trial, answers [][]byte) error {
	so := sideOptions[side]
	opts := so.opts
	if so.blobs {
		blobs, err := s3blob.New(s.s3, s.bucket, prefix)
		if err != nil {
			return err
		}
		opts = append(opts[:len(opts):len(opts)], idem.WithBlobs(blobs))
	}
	answer := func(msg events.SQSMessage) ([]byte, error) {
		i, err := answerIndex(msg.Body)
		if err != nil {
			return nil, err
		}
		return answers[i%len(answers)], nil
	}
	var calls, replayed atomic.Int64
	work := func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		calls.Add(1)
		return answer(msg)
	}
	hook := func(_ context.Context, msg events.SQSMessage, result []byte) error {
		want, err := answer(msg)
		if err != nil {
			return err
		}
		if !bytes.Equal(result, want) {
			return fmt.Errorf("bench: replayed %d bytes, not the %d-byte answer", len(result), len(want))
		}
		replayed.Add(1)
		return nil
	}
	logs := &errorLog{}
	store, err := dynamostore.New(s.ddbClient(), first.Table)
	if err != nil {
		return err
	}
	h, err := handler.New(store, work,
		handler.WithRequest(request.Identity{Namespace: "bench"}),
		handler.WithConcurrency(s.cfg.BatchSize),
		handler.WithLogger(slog.New(logs)),
		handler.WithIdem(opts...),
		handler.WithReplayHook(hook),
		// The failures are counted from each batch's response: a batch
		// whose every record failed (an omitted result replayed to the
		// hook) is a measurement, not an error of the run.
		func(c *handler.Config) { c.NoBatchError = true })
	if err != nil {
		return err
	}
	phase := func(t Trial) (Sample, map[string]int, error) {
		s.ddb.Take()
		s.s3c.Take()
		calls.Store(0)
		start := time.Now()
		failures, err := runBatches(ctx, h, t.Batches, nil)
		wall := time.Since(start)
		u, s3u := s.ddb.Take(), s.s3c.Take()
		return Sample{Records: t.Records(), Wall: wall, Requests: u.Requests, Retries: u.Retries,
			WriteUnits: u.WriteUnits, ReadUnits: u.ReadUnits, Failures: failures, Executions: int(calls.Load())}, s3u.Requests, err
	}
	if m.First, m.S3First, err = phase(first); err != nil {
		return err
	}
	m.Omitted = int(logs.omitted.Load())
	if m.Dup, m.S3Dup, err = phase(dup); err != nil {
		return err
	}
	m.Replayed = int(replayed.Load())
	m.Error = logs.first()
	return nil
}

// ddbClient is the counted DynamoDB client of idemq's sides, made once.
func (s *sizeSuite) ddbClient() *dynamodb.Client {
	if s.ddbByRecords == nil {
		s.ddbByRecords = newClient(s.cfg.Endpoint, s.ddb, s.cfg.BatchSize)
	}
	return s.ddbByRecords
}

// objects sizes the objects under prefix, and deletes them when del.
func (s *sizeSuite) objects(ctx context.Context, prefix string, del bool) (size, n int, err error) {
	p := s3.NewListObjectsV2Paginator(s.s3admin, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(prefix)})
	var ids []s3types.ObjectIdentifier
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("bench: list s3://%s/%s: %w", s.bucket, prefix, err)
		}
		for _, o := range page.Contents {
			size += int(aws.ToInt64(o.Size))
			ids = append(ids, s3types.ObjectIdentifier{Key: o.Key})
		}
	}
	if del {
		for len(ids) > 0 {
			k := min(len(ids), 1000)
			if _, err := s.s3admin.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(s.bucket),
				Delete: &s3types.Delete{Objects: ids[:k], Quiet: aws.Bool(true)}}); err != nil {
				return 0, 0, fmt.Errorf("bench: delete objects under s3://%s/%s: %w", s.bucket, prefix, err)
			}
			n += k
			ids = ids[k:]
		}
	}
	return size, n, nil
}

// deleteBucket empties and deletes the run's bucket.
func (s *sizeSuite) deleteBucket() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, _, err := s.objects(ctx, "", true); err == nil {
		_, _ = s.s3admin.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(s.bucket)})
	}
}

// newS3Client returns an S3 client for the local server at endpoint
// (path-style, as moto serves it), counting its requests with c when c is
// not nil.
func newS3Client(endpoint string, c *Counter) *s3.Client {
	var api []func(*middleware.Stack) error
	if c != nil {
		api = append(api, c.Middleware())
	}
	return s3.New(s3.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, accessKey, ""),
		APIOptions:   api,
	})
}

// errorLog is a slog.Handler that keeps the handler's error lines: it
// counts results not stored for their size and keeps the first error.
type errorLog struct {
	omitted atomic.Int64
	err     atomic.Pointer[string]
}

func (l *errorLog) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelWarn }

func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "too large") {
		l.omitted.Add(1)
	}
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			msg += ": " + a.Value.String()
		}
		return true
	})
	l.err.CompareAndSwap(nil, &msg)
	return nil
}

func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

// first is the first error line, or "".
func (l *errorLog) first() string {
	if p := l.err.Load(); p != nil {
		return *p
	}
	return ""
}
