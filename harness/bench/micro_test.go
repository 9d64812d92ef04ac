package bench_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/idemq/idemq/harness/bench"
)

// BenchmarkHandler is the handler's overhead without I/O, per scenario and
// batch size; `make bench-go` runs it into results/bench-go.txt for
// benchstat.
func BenchmarkHandler(b *testing.B) {
	for _, m := range bench.Micros() {
		b.Run(m.Name, m.Bench)
	}
}

// BenchmarkSDK is first delivery through the DynamoDB SDK with no server,
// for the raw-SDK floor, the fenced floor and idemq (bench.SDKMicros);
// `make bench-go` runs it with BenchmarkHandler.
func BenchmarkSDK(b *testing.B) {
	for _, m := range bench.SDKMicros() {
		b.Run(m.Name, m.Bench)
	}
}

// BenchmarkTracing is first delivery without I/O with tracing off, with
// a no-op handler.Tracer and with OpenTelemetry (bench.TracingMicros);
// `make bench-go` runs it with BenchmarkHandler.
func BenchmarkTracing(b *testing.B) {
	for _, m := range bench.TracingMicros() {
		b.Run(m.Name, m.Bench)
	}
}

// BenchmarkHeartbeat is first delivery of long work with the deadline's
// lease and with the consumer's short lease and heartbeat, scaled down
// (bench.HeartbeatMicros); `make bench-go` runs it with BenchmarkHandler.
func BenchmarkHeartbeat(b *testing.B) {
	for _, m := range bench.HeartbeatMicros() {
		b.Run(m.Name, m.Bench)
	}
}

// TestMicros runs every micro-benchmark once, so they cannot rot between
// benchmark runs, and reads their output as `make bench` does.
func TestMicros(t *testing.T) {
	t.Parallel()
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bt.Value.Set(old) }()
	var out strings.Builder
	n := 0
	for _, fam := range []struct {
		name   string
		micros []bench.Micro
	}{{"Handler", bench.Micros()}, {"SDK", bench.SDKMicros()}, {"Tracing", bench.TracingMicros()}, {"Heartbeat", bench.HeartbeatMicros()}} {
		for _, m := range fam.micros {
			r := testing.Benchmark(m.Bench)
			if r.N == 0 {
				t.Fatalf("%s/%s failed", fam.name, m.Name)
			}
			out.WriteString("Benchmark" + fam.name + "/" + m.Name + "-2\t" + r.String() + "\t" + r.MemString() + "\n")
			n++
		}
	}
	res, err := bench.ParseGoBench(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != n {
		t.Fatalf("%d results for %d micro-benchmarks:\n%s", len(res), n, out.String())
	}
	families := map[string]int{}
	for _, r := range res {
		families[r.Family]++
		if r.NsPerRecord <= 0 || r.AllocsPerRecord <= 0 || r.BytesPerRecord <= 0 {
			t.Errorf("%s/%s: %+v, want every metric above zero, from:\n%s", r.Family, r.Name, r, out.String())
		}
	}
	if families["Handler"] != len(bench.Micros()) || families["SDK"] != len(bench.SDKMicros()) || families["Tracing"] != len(bench.TracingMicros()) {
		t.Errorf("results by family %v, want %d Handler, %d SDK and %d Tracing", families, len(bench.Micros()), len(bench.SDKMicros()), len(bench.TracingMicros()))
	}
	var md strings.Builder
	if err := bench.Report(&md, &bench.Results{Runs: 1, Records: 10, DefaultConcurrency: 100, Micro: res}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#### The handler without I/O", "#### Through the SDK, without a server", "#### Tracing off and on", "| 1000 | "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, md.String())
		}
	}
}
