package bench_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/idemq/idemq/bench"
)

// BenchmarkHandler is the handler's overhead without I/O, per scenario and
// batch size; `make bench-go` runs it into results/bench-go.txt for
// benchstat.
func BenchmarkHandler(b *testing.B) {
	for _, m := range bench.Micros() {
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
	for _, m := range bench.Micros() {
		r := testing.Benchmark(m.Bench)
		if r.N == 0 {
			t.Fatalf("%s failed", m.Name)
		}
		out.WriteString("BenchmarkHandler/" + m.Name + "-2\t" + r.String() + "\t" + r.MemString() + "\n")
	}
	res, err := bench.ParseGoBench(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(bench.Micros()) {
		t.Fatalf("%d results for %d micro-benchmarks:\n%s", len(res), len(bench.Micros()), out.String())
	}
	for _, r := range res {
		if r.NsPerRecord <= 0 || r.AllocsPerRecord <= 0 || r.BytesPerRecord <= 0 {
			t.Errorf("%s: %+v, want every metric above zero, from:\n%s", r.Name, r, out.String())
		}
	}
}
