package idemqenv

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Each variable has one row, and each row is whole.
func TestTable(t *testing.T) {
	t.Parallel()
	rows := map[string]bool{}
	flags := map[string]string{}
	for _, v := range vars {
		if rows[v.Name] {
			t.Errorf("%s has two rows", v.Name)
		}
		rows[v.Name] = true
		switch {
		case !strings.HasPrefix(v.Name, "IDEMQ_") && v.Name != "AWS_LAMBDA_MAX_CONCURRENCY":
			t.Errorf("%s is not an IDEMQ_ variable", v.Name)
		case v.Programs == 0:
			t.Errorf("%s is read by no program", v.Name)
		case v.Doc == "" || strings.Contains(v.Doc, "\n"):
			t.Errorf("%s's doc is not one line: %q", v.Name, v.Doc)
		case v.value.parse == nil || v.value.format == nil || v.value.kind == "":
			t.Errorf("%s has no parser", v.Name)
		case v.Flag != "" && !v.Programs.Has(Command):
			t.Errorf("%s has the flag --%s but the command does not read it", v.Name, v.Flag)
		case v.Needs != "":
			if needed, ok := Lookup(v.Needs); !ok || gates[v.Needs] == "" || !needed.Programs.Has(v.Programs&^Command) {
				t.Errorf("%s needs %s, which is no variable with a reason (gates) read wherever it is", v.Name, v.Needs)
			}
		}
		if v.Flag != "" {
			if other, ok := flags[v.Flag]; ok {
				t.Errorf("%s and %s share the flag --%s", other, v.Name, v.Flag)
			}
			flags[v.Flag] = v.Name
		}
		for _, s := range v.Sets {
			if got := settingVar(s); got != v.Name {
				t.Errorf("%s sets %s, which %s sets too", v.Name, s, got)
			}
		}
	}
	for _, r := range retired {
		switch {
		case rows[r.name]:
			t.Errorf("%s is retired but has a row", r.name)
		case r.why == "" || strings.Contains(r.why, "\n"):
			t.Errorf("%s is retired without one line saying what replaced it", r.name)
		}
		rows[r.name] = true
	}
}

// Settings round-trip through Environ: each variable given is written
// back as given, and Read of what Environ writes gives the same settings.
// Together the cases set every variable of the table.
func TestEnvironRoundTrip(t *testing.T) {
	t.Parallel()
	const q = `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`
	cases := []map[string]string{
		{ // a worker on Lambda, everything set
			"IDEMQ_MODE": "worker", "IDEMQ_STORE": "dynamodb", "IDEMQ_TABLE": "idempotency", "IDEMQ_DYNAMODB_ENDPOINT": "http://127.0.0.1:8000", "IDEMQ_NAMESPACE": "summarise",
			"IDEMQ_KEY_FIELD": "request.id", "IDEMQ_FINGERPRINT_FIELDS": "prompt,model", "IDEMQ_RECORD_EXPIRY": "541h15m0s", "IDEMQ_LEASE": "2m0s", "IDEMQ_HEARTBEAT": "30s",
			"IDEMQ_CLOCK_SKEW": "250ms", "IDEMQ_COMPRESS_ABOVE": "off", "IDEMQ_CONCURRENCY": "25", "AWS_LAMBDA_MAX_CONCURRENCY": "8", "IDEMQ_BACKOFF": "true", "IDEMQ_SQS_ENDPOINT": "http://127.0.0.1:9324",
			"IDEMQ_QUEUE_URL": "http://127.0.0.1:9324/000000000000/jobs", "IDEMQ_EMF_NAMESPACE": "idemq", "IDEMQ_QUEUE": q, "IDEMQ_BLOB_BUCKET": "results",
			"IDEMQ_BLOB_PREFIX": "jobs/", "IDEMQ_OFFLOAD_ABOVE": "4096", "IDEMQ_S3_ENDPOINT": "http://127.0.0.1:9000", "IDEMQ_PROVIDER_URL": "https://api.openai.com/v1",
			"IDEMQ_PROVIDER_API_KEY_SECRET": "idemq/provider-key", "IDEMQ_TRACING": "xray",
		},
		{ // a consumer on PostgreSQL
			"IDEMQ_STORE": "postgres", "IDEMQ_STORE_URL": "postgres://u@127.0.0.1:5432/db?sslmode=disable", "IDEMQ_TABLE": "records", "IDEMQ_KEY_FIELDS": "document_id,version",
			"IDEMQ_COMPRESS_ABOVE": "2048", "IDEMQ_BACKOFF": "false", "IDEMQ_CONSUMER_QUEUE_URL": "http://127.0.0.1:9324/000000000000/jobs", "IDEMQ_CONSUMER_MAX_RUN_TIME": "1h0m0s",
			"IDEMQ_CONSUMER_MAX_BATCHES": "6", "IDEMQ_CONSUMER_GRACE_PERIOD": "25s", "IDEMQ_CONSUMER_VISIBILITY": "1m0s", "IDEMQ_HEALTH_ADDR": ":8080", "IDEMQ_PROVIDER_URL": "http://127.0.0.1:1",
			"IDEMQ_PROVIDER_API_KEY": "sk-local", "IDEMQ_TRACING": "otel",
		},
		{ // a worker on Redis, keyed by an attribute
			"IDEMQ_STORE": "redis", "IDEMQ_STORE_URL": "rediss://:pw@cache:6380/2", "IDEMQ_TABLE": "jobs", "IDEMQ_KEY_ATTRIBUTE": "key",
		},
		{ // the front door
			"IDEMQ_MODE": "frontdoor", "IDEMQ_TABLE": "idempotency", "IDEMQ_DYNAMODB_MULTI_REGION_STRONG": "true", "IDEMQ_NAMESPACE": "summarise", "IDEMQ_KEY_FIELD": "idempotency_key", "IDEMQ_RECORD_EXPIRY": "120h0m0s", "IDEMQ_CLOCK_SKEW": "1s",
			"IDEMQ_FRONTDOOR_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", "IDEMQ_FRONTDOOR_PATH": "/v1/jobs", "IDEMQ_FRONTDOOR_MAX_BODY_BYTES": "1000",
			"IDEMQ_FRONTDOOR_ADDR": "127.0.0.1:8080", "IDEMQ_FRONTDOOR_SCOPE": "none", "IDEMQ_BLOB_BUCKET": "results", "IDEMQ_BLOB_PREFIX": "idemq/", "IDEMQ_SQS_ENDPOINT": "http://127.0.0.1:9324",
		},
		{ // the dispatcher
			"IDEMQ_MODE": "dispatch", "IDEMQ_DURABLE_FUNCTION": "summarise:prod", "IDEMQ_NAMESPACE": "summarise", "IDEMQ_LAMBDA_ENDPOINT": "http://127.0.0.1:9001",
			"IDEMQ_KEY_FIELDS": "a,b", "IDEMQ_CONCURRENCY": "4",
		},
	}
	covered := map[string]bool{}
	for i, vars := range cases {
		s, err := Read(func(name string) string { return vars[name] })
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		out := s.Environ()
		for _, name := range slices.Sorted(maps.Keys(vars)) {
			covered[name] = true
			if out[name] != vars[name] {
				t.Errorf("case %d: %s=%q is written back as %q", i, name, vars[name], out[name])
			}
		}
		again, err := Read(func(name string) string { return out[name] })
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Errorf("case %d: Read(Environ()) = %+v, %v; want %+v", i, again, err, s)
		}
	}
	for _, v := range vars {
		if !covered[v.Name] {
			t.Errorf("no case sets %s", v.Name)
		}
	}
}
