package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/idemq/idemq/internal/storekit"
)

// The worker wired by startup, in process, with each store it takes:
// memory, and PostgreSQL and Redis on the servers the test command starts
// (IDEMQ_STORE=postgres|redis with IDEMQ_STORE_URL).
func TestWorkerInProcess(t *testing.T) {
	t.Parallel()
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		testWorker(t, "IDEMQ_STORE", "memory")
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		// The table is a migration's (TestPostgresTableIsAMigration): the
		// worker only checks it.
		testWorker(t, "IDEMQ_STORE", "postgres", "IDEMQ_STORE_URL", pgtest.URL(t), "IDEMQ_TABLE", pgtest.NewTable(t, pgtest.Pool(t)))
	})
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		testWorker(t, "IDEMQ_STORE", "redis", "IDEMQ_STORE_URL", redistest.URL(t), "IDEMQ_TABLE", "worker-test-"+storekit.NewOwner()[:8])
	})
}

func testWorker(t *testing.T, store ...string) {
	f := newFakeProvider(t)
	vars := env(append(store, "IDEMQ_KEY_FIELD", "idempotency_key", "IDEMQ_PROVIDER_URL", f.URL+"/v1", "IDEMQ_NAMESPACE", "worker-test",
		"IDEMQ_BACKOFF", "false")...)
	h, err := startup(context.Background(), vars, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id, body string) events.SQSMessage {
		return events.SQSMessage{MessageId: id, Body: body, EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q"}
	}
	invoke := func(msgs ...events.SQSMessage) []string {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		resp, err := h(ctx, events.SQSEvent{Records: msgs})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, f := range resp.BatchItemFailures {
			ids = append(ids, f.ItemIdentifier)
		}
		return ids
	}
	body := func(key, prompt string) string {
		return fmt.Sprintf(`{"idempotency_key":%q,"model":"m1","prompt":%q,"max_tokens":16}`, key, prompt)
	}

	got := invoke(
		rec("m1", body("k1", "one")), rec("m2", body("k1", "one")), rec("m3", body("k2", "flaky two")),
		rec("m4", `{"idempotency_key":"k3","model":"m1"}`), // no prompt
	)
	if want := []string{"m3", "m4"}; !slices.Equal(got, want) {
		t.Errorf("failures %v, want %v", got, want)
	}
	got = invoke(rec("m5", body("k1", "one")), rec("m3", body("k2", "flaky two")))
	if len(got) != 0 {
		t.Errorf("failures %v on redelivery, want none", got)
	}
	if a, b := f.count("one"), f.count("flaky two"); a != 1 || b != 2 {
		t.Errorf("provider requests: %d for k1 (want 1), %d for k2 (want 2: a 500, then the retry)", a, b)
	}
	var sent completionRequest
	for _, r := range f.all() {
		if r.Prompt == "one" {
			sent = r.Body
		}
	}
	if sent.MaxTokens == nil || *sent.MaxTokens != 16 || sent.Model != "m1" {
		raw, _ := json.Marshal(sent)
		t.Errorf("request sent %s", raw)
	}
}

func TestNewHandlerNeedsANamespaceOutsideLambda(t *testing.T) {
	t.Parallel()
	_, err := startup(context.Background(), env("IDEMQ_STORE", "memory", "IDEMQ_KEY_FIELD", "k", "IDEMQ_PROVIDER_URL", "http://127.0.0.1:1"), slog.New(slog.DiscardHandler))
	if err == nil {
		t.Error("no error without a namespace outside Lambda")
	}
}

// The worker maps its variables onto the library's settings and leaves
// their checks to it: a setting the library refuses is a start-up error
// carrying the library's message.
func TestNewHandlerReportsTheLibrarysRefusal(t *testing.T) {
	t.Parallel()
	base := []string{"IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "w", "IDEMQ_PROVIDER_URL", "http://127.0.0.1:1", "IDEMQ_BACKOFF", "false"}
	_, err := startup(context.Background(), env(append(base, "IDEMQ_LEASE", "4s", "IDEMQ_HEARTBEAT", "4s")...), slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "IDEMQ_HEARTBEAT: idem: Heartbeat 4s: must be at most half of Lease 4s") {
		t.Errorf("err = %v, want the library's refusal of the heartbeat, naming IDEMQ_HEARTBEAT", err)
	}
	_, err = startup(context.Background(), env(append(base, "IDEMQ_RECORD_EXPIRY", "1m", "IDEMQ_LEASE", "2m")...), slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "IDEMQ_RECORD_EXPIRY: idem: Expiry 1m0s: must be at least Lease 2m0s") {
		t.Errorf("err = %v, want the library's refusal of an expiry under the lease, naming IDEMQ_RECORD_EXPIRY", err)
	}
}

// fakeAWS points the worker's AWS configuration at a fake server on
// loopback.
func fakeAWS(url string) []func(*awsconfig.LoadOptions) error {
	return []func(*awsconfig.LoadOptions) error{
		awsconfig.WithRegion("us-east-1"),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("idemqtest", "idemqtest", "")),
		awsconfig.WithBaseEndpoint(url),
	}
}

// The provider's API key comes from the secret, read once at start-up, and
// is the bearer token of every request.
func TestWorkerAPIKeyFromSecret(t *testing.T) {
	t.Parallel()
	secrets := newFakeSecrets(t, map[string]fakeSecret{"idemq/provider-key": {str: "sk-from-secret\n"}})
	f := newFakeProvider(t)
	h, err := startup(context.Background(), env("IDEMQ_STORE", "memory", "IDEMQ_KEY_FIELD", "idempotency_key", "IDEMQ_PROVIDER_URL", f.URL,
		"IDEMQ_NAMESPACE", "worker-test", "IDEMQ_PROVIDER_API_KEY_SECRET", "idemq/provider-key", "IDEMQ_BACKOFF", "false",
	), slog.New(slog.DiscardHandler), fakeAWS(secrets.URL)...)
	if err != nil {
		t.Fatal(err)
	}
	for i, key := range []string{"k1", "k2", "k3"} {
		body := fmt.Sprintf(`{"idempotency_key":%q,"model":"m1","prompt":"prompt %s"}`, key, key)
		resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{
			MessageId: fmt.Sprint("m", i), Body: body, EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q",
		}}})
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("invocation %d: %+v, %v", i, resp, err)
		}
	}
	requests := f.all()
	if len(requests) != 3 {
		t.Errorf("%d provider requests, want 3", len(requests))
	}
	for _, r := range requests {
		if r.Auth != "Bearer sk-from-secret" {
			t.Errorf("provider request for %q: Authorization %q, want the secret's value as the bearer token", r.Prompt, r.Auth)
		}
	}
	if calls := secrets.all(); len(calls) != 1 || calls[0].SecretID != "idemq/provider-key" {
		t.Errorf("Secrets Manager requests %+v, want one GetSecretValue of idemq/provider-key, at start-up", calls)
	}
}

// A secret that cannot be read stops the start-up, naming the variable.
func TestNewHandlerSecretErrors(t *testing.T) {
	t.Parallel()
	secrets := newFakeSecrets(t, map[string]fakeSecret{"empty": {str: ""}})
	for _, id := range []string{"missing", "empty"} {
		_, err := startup(context.Background(), env("IDEMQ_STORE", "memory", "IDEMQ_KEY_FIELD", "k", "IDEMQ_PROVIDER_URL", "http://127.0.0.1:1",
			"IDEMQ_NAMESPACE", "worker-test", "IDEMQ_PROVIDER_API_KEY_SECRET", id), slog.New(slog.DiscardHandler), fakeAWS(secrets.URL)...)
		if err == nil || !strings.Contains(err.Error(), "IDEMQ_PROVIDER_API_KEY_SECRET") {
			t.Errorf("secret %q: start error %v, want one naming IDEMQ_PROVIDER_API_KEY_SECRET", id, err)
		}
		var notFound *types.ResourceNotFoundException
		if id == "missing" && !errors.As(err, &notFound) {
			t.Errorf("secret %q: error %v, want the SDK's ResourceNotFoundException wrapped", id, err)
		}
	}
}

// On PostgreSQL the worker's start-up only checks the table: a missing
// table, or one of another shape, stops it with a message naming the table
// and the migration, and is left as it was; the migration (-migrate)
// creates it, after which the worker starts.
func TestPostgresTableIsAMigration(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	table, other := pgtest.TableName(), pgtest.TableName()
	t.Cleanup(func() {
		for _, name := range []string{table, other} {
			_, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+pgx.Identifier{name}.Sanitize())
		}
	})
	vars := func(table string) func(string) string {
		return env("IDEMQ_STORE", "postgres", "IDEMQ_STORE_URL", pgtest.URL(t), "IDEMQ_TABLE", table,
			"IDEMQ_PROVIDER_URL", "http://127.0.0.1:1", "IDEMQ_NAMESPACE", "worker-test", "IDEMQ_BACKOFF", "false")
	}
	exists := func(name string) bool {
		var ok bool
		if err := pool.QueryRow(context.Background(), "SELECT to_regclass($1) IS NOT NULL", pgx.Identifier{name}.Sanitize()).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	wantRefused := func(what string, err error, table string) {
		t.Helper()
		if !errors.Is(err, pgstore.ErrTableShape) {
			t.Fatalf("%s: start-up error %v, want pgstore.ErrTableShape", what, err)
		}
		for _, want := range []string{"IDEMQ_TABLE=" + table, "-migrate", "make migrate-postgres"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: start-up error %q does not say %q", what, err, want)
			}
		}
	}

	_, err := startup(context.Background(), vars(table), slog.New(slog.DiscardHandler))
	wantRefused("missing table", err, table)
	if exists(table) {
		t.Fatal("the worker's start-up created the table")
	}

	// A table of another shape: start-up and the migration both refuse it,
	// and leave it as it was.
	if _, err := pool.Exec(context.Background(), "CREATE TABLE "+pgx.Identifier{other}.Sanitize()+" (id text PRIMARY KEY, note text)"); err != nil {
		t.Fatal(err)
	}
	_, err = startup(context.Background(), vars(other), slog.New(slog.DiscardHandler))
	wantRefused("table of another shape", err, other)
	var out strings.Builder
	if err := migrate(context.Background(), vars(other), &out); !errors.Is(err, pgstore.ErrTableShape) || !strings.Contains(err.Error(), "column status is missing") {
		t.Errorf("migrate on a table of another shape: %v, want pgstore.ErrTableShape saying what differs", err)
	}

	// The migration creates the table, twice is the same as once, and then
	// the worker starts.
	for range 2 {
		out.Reset()
		if err := migrate(context.Background(), vars(table), &out); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		if !strings.Contains(out.String(), table+" is ready") {
			t.Errorf("migrate printed %q", out.String())
		}
	}
	if _, err := startup(context.Background(), vars(table), slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("start-up after the migration: %v", err)
	}
}

// The migration reads only the store's variables, and only for PostgreSQL.
func TestMigrateNeedsPostgres(t *testing.T) {
	t.Parallel()
	for name, vars := range map[string]func(string) string{
		"dynamodb":  env("IDEMQ_TABLE", "t"),
		"no table":  env("IDEMQ_STORE", "postgres", "IDEMQ_STORE_URL", "postgres://u@127.0.0.1:1/db"),
		"redis":     env("IDEMQ_STORE", "redis", "IDEMQ_STORE_URL", "redis://127.0.0.1:1"),
		"not a URL": env("IDEMQ_STORE", "postgres", "IDEMQ_STORE_URL", "host=h password=s3cr3t", "IDEMQ_TABLE", "t"),
	} {
		err := migrate(context.Background(), vars, io.Discard)
		if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "IDEMQ_") {
			t.Errorf("%s: migrate error %v, want one naming the variable at fault, without the password", name, err)
		}
	}
}
