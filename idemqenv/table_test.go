package idemqenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Each name constant has one row, each row one name constant, and each
// row is whole.
func TestTable(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "vars.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && s != Prefix && (strings.HasPrefix(s, Prefix) || s == MaxConcurrency) && !strings.ContainsAny(s, " =") {
				if consts[s] {
					t.Errorf("%s is declared twice in vars.go", s)
				}
				consts[s] = true
			}
		}
		return true
	})
	rows := map[string]bool{}
	flags := map[string]string{}
	for _, v := range vars {
		if rows[v.Name] {
			t.Errorf("%s has two rows", v.Name)
		}
		rows[v.Name] = true
		switch {
		case !consts[v.Name]:
			t.Errorf("%s has a row but no constant", v.Name)
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
	for name := range consts {
		if !rows[name] {
			t.Errorf("%s is declared but has no row", name)
		}
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
			Mode: "worker", Store: "dynamodb", Table: "idempotency", DynamoDBEndpoint: "http://127.0.0.1:8000", Namespace: "summarise",
			KeyField: "request.id", FingerprintFields: "prompt,model", RecordExpiry: "541h15m0s", Lease: "2m0s", Heartbeat: "30s",
			ClockSkew: "250ms", compressAbove: "off", Concurrency: "25", MaxConcurrency: "8", Backoff: "true", SQSEndpoint: "http://127.0.0.1:9324",
			QueueURL: "http://127.0.0.1:9324/000000000000/jobs", EMFNamespace: "idemq", Queue: q, BlobBucket: "results",
			BlobPrefix: "jobs/", OffloadAbove: "4096", S3Endpoint: "http://127.0.0.1:9000", ProviderURL: "https://api.openai.com/v1",
			ProviderAPIKeySecret: "idemq/provider-key", Tracing: "xray",
		},
		{ // a consumer on PostgreSQL
			Store: "postgres", StoreURL: "postgres://u@127.0.0.1:5432/db?sslmode=disable", Table: "records", KeyFields: "document_id,version",
			compressAbove: "2048", Backoff: "false", ConsumerQueueURL: "http://127.0.0.1:9324/000000000000/jobs", ConsumerMaxRunTime: "1h0m0s",
			ConsumerMaxBatches: "6", ConsumerGracePeriod: "25s", ConsumerVisibility: "1m0s", HealthAddr: ":8080", ProviderURL: "http://127.0.0.1:1",
			ProviderAPIKey: "sk-local", Tracing: "otel",
		},
		{ // a worker on Redis, keyed by an attribute
			Store: "redis", StoreURL: "rediss://:pw@cache:6380/2", Table: "jobs", KeyAttribute: "key",
		},
		{ // the front door
			Mode: "frontdoor", Table: "idempotency", DynamoDBStrong: "true", Namespace: "summarise", KeyField: "idempotency_key", RecordExpiry: "120h0m0s", ClockSkew: "1s",
			FrontDoorQueueURL: "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", frontDoorPath: "/v1/jobs", frontDoorMaxBodyBytes: "1000",
			FrontDoorAddr: "127.0.0.1:8080", FrontDoorScope: "none", BlobBucket: "results", BlobPrefix: "idemq/", SQSEndpoint: "http://127.0.0.1:9324",
		},
		{ // the dispatcher
			Mode: "dispatch", DurableFunction: "summarise:prod", Namespace: "summarise", LambdaEndpoint: "http://127.0.0.1:9001",
			KeyFields: "a,b", Concurrency: "4",
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
