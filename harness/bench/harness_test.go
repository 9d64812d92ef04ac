package bench_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/bench"
	"github.com/idemq/idemq/harness/internal/repo"
	"github.com/idemq/idemq/internal/rie"
)

// TestHarness runs the whole benchmark once at one size, with one run and
// few records: DynamoDB Local, the Powertools driver, every scenario, the
// report, the chart and the start-up under the emulator. It checks what
// the harness counts, never how fast anything was. It fails when DynamoDB
// Local, the Powertools packages or the emulator are missing; only -short
// skips it.
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the harness needs DynamoDB Local, Node with bench/powertools installed, and the emulator")
	}
	t.Parallel()
	if os.Getenv(bench.EndpointEnv) == "" {
		t.Fatalf("%s is not set: DynamoDB Local is not running; use `make test`, or `scripts/with-dynamodb.sh go test ./bench`", bench.EndpointEnv)
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The worker a test run shares (make test builds it once), or one
	// built here.
	bootstrap, err := rie.Bootstrap(ctx, root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(ctx, bench.Config{
		Root: root, Sizes: []int{10}, Models: []time.Duration{time.Millisecond}, Records: 10, ThroughputRecords: 10, Runs: 1,
		ScenarioSize: 10, NoWarmup: true, Log: testLog{t},
		Startup: &bench.StartupConfig{RIE: filepath.Join(root, "bin", "aws-lambda-rie"), Archs: []string{runtime.GOARCH}, Starts: 1, Bootstrap: bootstrap},
	})
	if err != nil {
		t.Fatalf("%v\n(make deps-bench installs bench/powertools; make rie installs the emulator)", err)
	}

	for _, m := range append(append([]bench.Measurement(nil), res.Scenarios...), res.Throughput...) {
		if len(m.Samples) != 1 {
			t.Errorf("%s %s: %d samples, want 1", m.Runner, m.Scenario, len(m.Samples))
			continue
		}
		s := m.Samples[0]
		if s.Records != 10 || s.Wall <= 0 {
			t.Errorf("%s %s: %d records in %s, want 10", m.Runner, m.Scenario, s.Records, s.Wall)
		}
		// Both sides' clocks take the same steps (clock.go): a CPU mark
		// per batch, a tail after the clock stopped.
		if len(s.CPUMarks) != 1 || len(s.BatchRecords) != 1 || s.CPUMarks[0] < 0 || s.CPUMarks[0] > s.CPU || s.CPUTail < 0 {
			t.Errorf("%s %s: CPU marks %v for batches %v, CPU %s, tail %s: want one mark per batch, within the CPU", m.Runner, m.Scenario, s.CPUMarks, s.BatchRecords, s.CPU, s.CPUTail)
		}
		// What every implementation must do, whatever it costs: run each
		// new key's work once, and give back the records held elsewhere.
		if got, want := m.ExecutionsPerRecord(), m.Scenario.WantExecutions(); got != want {
			t.Errorf("%s %s: work ran for %.2f of the records, want %.2f", m.Runner, m.Scenario, got, want)
		}
		if m.Scenario != bench.InBatchDuplicates { // Powertools fails a copy it finds IN_PROGRESS
			if got, want := m.FailuresPerRecord(), m.Scenario.WantFailures(); got != want {
				t.Errorf("%s %s: %.2f of the records came back, want %.2f", m.Runner, m.Scenario, got, want)
			}
		}
		if m.Scenario == bench.First && m.CallsPerRecord() != 2 {
			t.Errorf("%s: %.2f requests per new record, want 2 (a claim and a completion)", m.Runner, m.CallsPerRecord())
		}
		// What DynamoDB bills: a new key is two writes of a small item, a
		// duplicate the store answers one (its failed claim).
		if m.Scenario == bench.First && (m.WriteUnitsPerRecord() < 2 || m.ItemBytes() <= 0) {
			t.Errorf("%s: %.2f write units and %.0f item bytes per new record, want at least 2 and some", m.Runner, m.WriteUnitsPerRecord(), m.ItemBytes())
		}
		if m.Scenario == bench.Redelivery && m.WriteUnitsPerRecord() < 1 {
			t.Errorf("%s: %.2f write units per redelivered record, want its failed claim's, at least 1", m.Runner, m.WriteUnitsPerRecord())
		}
		if m.Runner == bench.RunnerIdemq && m.CallsPerRecord() != m.Scenario.FloorRequests() {
			t.Errorf("idemq %s: %.2f requests per record, want the floor, %g", m.Scenario, m.CallsPerRecord(), m.Scenario.FloorRequests())
		}
	}
	if n := len(res.Scenarios); n != 2*len(bench.Scenarios) {
		t.Errorf("%d scenario measurements, want %d (idemq and Powertools)", n, 2*len(bench.Scenarios))
	}
	if n := len(res.Throughput); n != 4 {
		t.Errorf("%d throughput measurements, want 4 (floor, fenced floor, idemq, Powertools)", n)
	}
	// Every round is recorded, with the load; not waiting, none is quiet.
	if n := len(res.Rounds); n != len(bench.Scenarios)+1 {
		t.Errorf("%d rounds recorded, want %d (one per condition)", n, len(bench.Scenarios)+1)
	}
	for _, rd := range res.Rounds {
		if rd.Index != 1 || rd.Quiet || rd.Waited != 0 || rd.BusyBefore != -1 {
			t.Errorf("round %+v: want round 1, not waited for, not watched, not quiet", rd)
		}
	}
	if ok, why := res.Quiet(); ok || !strings.Contains(why, "not checked") {
		t.Errorf("Quiet() = %t, %q; want not quiet: the load was not checked", ok, why)
	}
	if st := res.Startup; st == nil || st.Sizes[runtime.GOARCH] < 1<<20 || len(st.Init) != 1 || st.Init[0] <= 0 {
		t.Errorf("start-up %+v, want a size and an init time", st)
	}

	var md, img bytes.Buffer
	if err := bench.Report(&md, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Requests per record, by scenario", "What DynamoDB bills", "records per second", "Start-up", "targets"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, md.String())
		}
	}
	if err := bench.Chart(&img, res); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&img); err != nil {
		t.Errorf("the chart is not a PNG: %v", err)
	}
	if t.Failed() {
		t.Logf("report:\n%s", md.String())
	}
}

// testLog writes the harness's progress lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
