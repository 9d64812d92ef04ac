package proxyproof

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeHeading is the README section whose first Go block the
// DynamoDB user builds as printed.
const readmeHeading = "## One call"

// readmeExample returns README.md's "One call" example as printed, and
// callTheModel, which it calls and leaves to the reader, unless it
// defines it.
func readmeExample(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, err := firstGoBlock(string(data), readmeHeading)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if strings.Contains(code, "callTheModel(") && !strings.Contains(code, "func callTheModel(") {
		code += "\n" + callTheModel
	}
	return code
}

// firstGoBlock returns the first ```go block after the line heading.
func firstGoBlock(markdown, heading string) (string, error) {
	lines := strings.Split(markdown, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) != heading {
		i++
	}
	if i == len(lines) {
		return "", fmt.Errorf("no heading %q", heading)
	}
	for i < len(lines) && strings.TrimSpace(lines[i]) != "```go" {
		if i > 0 && strings.HasPrefix(lines[i], "## ") && strings.TrimSpace(lines[i]) != heading {
			return "", fmt.Errorf("no ```go block under %q", heading)
		}
		i++
	}
	var code strings.Builder
	for i++; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "```" {
			return code.String(), nil
		}
		code.WriteString(lines[i] + "\n")
	}
	return "", fmt.Errorf("the ```go block under %q does not end", heading)
}

// constant returns a main that is text.
func constant(text string) func(*testing.T, string) string {
	return func(*testing.T, string) string { return text }
}

// callTheModel is the work README's example leaves to the reader.
const callTheModel = `// callTheModel stands for the costly call README's example makes.
func callTheModel(_ context.Context, body string) ([]byte, error) {
	return []byte("summary of " + body), nil
}
`

// pgMain wires the PostgreSQL store as a user's Lambda function does.
const pgMain = `package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/pgstore"
)

func main() {
	pool, err := pgxpool.New(context.Background(), os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	store, err := pgstore.New(pool, "idempotency")
	if err != nil {
		panic(err)
	}
	h, err := handler.New(store, summarise)
	if err != nil {
		panic(err)
	}
	lambda.Start(h)
}

func summarise(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	return []byte("summary of " + msg.Body), nil
}
`

// redisMain wires the Redis store as a user's Lambda function does.
const redisMain = `package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/redisstore"
)

func main() {
	store, err := redisstore.New(redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")}))
	if err != nil {
		panic(err)
	}
	h, err := handler.New(store, summarise)
	if err != nil {
		panic(err)
	}
	lambda.Start(h)
}

func summarise(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	return []byte("summary of " + msg.Body), nil
}
`

// workerMain is a function of the user's own on the worker's contract:
// the store, the handler, the back-off and the start-up checks from the
// IDEMQ_* environment (worker.FromEnv), served on Lambda or as a
// consumer (Worker.Run).
const workerMain = `package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/worker"
)

func main() {
	ctx := context.Background()
	w, err := worker.FromEnv(ctx, os.Getenv, summarise)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	if err := w.Run(ctx); err != nil {
		panic(err)
	}
}

func summarise(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	return []byte("summary of " + msg.Body), nil
}
`

// userTest is each user's test: the program's summarise, wrapped by the
// handler on the in-memory store, over a queue that holds each request
// twice, runs once per key.
const userTest = `package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem/memstore"
)

func TestSummariseOncePerKey(t *testing.T) {
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	var calls handlertest.Calls
	h, err := handler.New(store, calls.Func(handlertest.BodyField("idempotency_key"), summarise))
	if err != nil {
		t.Fatal(err)
	}
	q := handlertest.NewQueue()
	for _, key := range []string{"a", "b", "c"} {
		body := fmt.Sprintf("{\"idempotency_key\":%q}", key)
		q.Send(body)
		q.Send(body) // the producer's re-send
	}
	if err := handlertest.Drain(context.Background(), q, h, 4); err != nil {
		t.Fatal(err)
	}
	if calls.Total() != 3 || len(calls.Repeated()) != 0 || len(q.DeadLetters()) != 0 {
		t.Errorf("calls %d, repeated %v, dead letters %d; want 3 calls, none repeated, none dead", calls.Total(), calls.Repeated(), len(q.DeadLetters()))
	}
}
`

// ownStore is a store written outside the repository: one map under a
// mutex, each method one atomic step, as idem.Store asks.
const ownStore = `// Package mystore is a store of one's own, kept in memory.
package mystore

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/idemq/idemq/idem"
)

// Store keeps records in a map.
type Store struct {
	mu      sync.Mutex
	records map[idem.Key]idem.Record
}

// New returns an empty Store.
func New() *Store { return &Store{records: map[idem.Key]idem.Record{}} }

const maxResult = 400 << 10

// upToSecond is t in the whole seconds the store keeps, rounded up so a
// record never expires early.
func upToSecond(t time.Time) time.Time {
	s := t.Unix()
	if t.Nanosecond() != 0 {
		s++
	}
	return time.Unix(s, 0)
}

func (s *Store) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	if err := ctx.Err(); err != nil {
		return idem.Claim{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.records[req.Key]
	if ok && old.Status == idem.StatusInProgress && old.Owner == req.Owner {
		return idem.Claim{Claimed: true}, nil
	}
	if ok && !old.Claimable(req.Now) {
		return idem.Claim{Record: old}, nil
	}
	s.records[req.Key] = idem.Record{Key: req.Key, Status: idem.StatusInProgress, Owner: req.Owner, Fingerprint: req.Fingerprint,
		LeaseUntil: req.LeaseUntil.Truncate(time.Millisecond), ExpiresAt: upToSecond(req.ExpiresAt)}
	c := idem.Claim{Claimed: true}
	if ok {
		c.Previous = &old
	}
	return c, nil
}

func (s *Store) Complete(ctx context.Context, c idem.Completion) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(c.Writes) > 0 {
		return fmt.Errorf("%w: mystore commits none", idem.ErrUnsupportedWrite)
	}
	result, encoding := bytes.Clone(c.Result), c.Encoding
	if c.OmittedBytes > 0 {
		result, encoding = nil, ""
	} else if len(result) > maxResult {
		return idem.ErrResultTooLarge
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[c.Key]
	if ok && rec.Status == idem.StatusCompleted && rec.Owner == c.Owner && rec.OmittedBytes == max(c.OmittedBytes, 0) &&
		rec.Encoding == encoding && bytes.Equal(rec.Result, result) {
		return nil
	}
	if !ok || rec.Status != idem.StatusInProgress || rec.Owner != c.Owner {
		return &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: c.Owner}
	}
	rec.Status, rec.LeaseUntil, rec.Result, rec.Encoding, rec.OmittedBytes = idem.StatusCompleted, time.Time{}, result, encoding, max(c.OmittedBytes, 0)
	rec.ExpiresAt = upToSecond(c.ExpiresAt)
	s.records[c.Key] = rec
	return nil
}

func (s *Store) Release(ctx context.Context, key idem.Key, owner string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[key]
	if !ok || rec.Status != idem.StatusInProgress || rec.Owner != owner {
		return &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: owner}
	}
	delete(s.records, key)
	return nil
}

func (s *Store) Extend(ctx context.Context, e idem.Extension) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[e.Key]
	if !ok || rec.Status != idem.StatusInProgress || rec.Owner != e.Owner {
		return &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: e.Owner}
	}
	rec.LeaseUntil = e.LeaseUntil.Truncate(time.Millisecond)
	if !e.ExpiresAt.IsZero() {
		rec.ExpiresAt = upToSecond(e.ExpiresAt)
	}
	s.records[e.Key] = rec
	return nil
}

// Get reads a record as stored.
func (s *Store) Get(ctx context.Context, key idem.Key) (idem.Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return idem.Record{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[key]
	rec.Result = bytes.Clone(rec.Result)
	return rec, ok, nil
}
`

// ownStoreTest is the store author's test: the conformance suite and the
// history check, beside it, in a few lines.
const ownStoreTest = `package mystore

import (
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/idemtest/linearize"
)

func TestConformance(t *testing.T) {
	idemtest.Run(t, func(*testing.T) idem.Store { return New() })
}

func TestLinearizable(t *testing.T) {
	linearize.Linearizable(t, New(), linearize.Config{LoseAnswers: 0.05, Operations: 1000})
}
`
