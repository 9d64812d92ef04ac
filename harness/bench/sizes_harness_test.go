package bench_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/harness/bench"
	"github.com/idemq/idemq/harness/internal/repo"
)

// TestSizes runs the size scenarios once with few records at two answer
// sizes: one that stays inline, and one over DynamoDB's 400 KB item, which
// only a blob store keeps. It checks what each side stored, sent and replayed, never how
// fast. It fails when DynamoDB Local, the local S3 or the Powertools
// packages are missing; only -short skips it.
func TestSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the size scenarios need DynamoDB Local, a local S3 and Node with bench/powertools installed")
	}
	t.Parallel()
	for _, env := range []string{bench.EndpointEnv, bench.S3EndpointEnv} {
		if os.Getenv(env) == "" {
			t.Fatalf("%s is not set; use `make test`, or `scripts/with-dynamodb.sh scripts/with-s3.sh go test ./bench`", env)
		}
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	endpoint := os.Getenv(bench.EndpointEnv)
	pt, err := bench.StartPowertools(ctx, filepath.Join(root, bench.PowertoolsDir), endpoint)
	if err != nil {
		t.Fatalf("%v\n(make deps-bench installs bench/powertools)", err)
	}
	defer pt.Close()
	const small, large, records = 1 << 10, 512 << 10, 4
	res, err := bench.MeasureSizes(ctx, bench.SizeConfig{Endpoint: endpoint, S3Endpoint: os.Getenv(bench.S3EndpointEnv),
		Sizes: []int{small, large}, Records: records, BatchSize: 2, Log: testLog{t}}, pt)
	if err != nil {
		t.Fatal(err)
	}

	for _, m := range res.Rows {
		u := m.PerRecord()
		if m.First.Records != records || m.Dup.Records != records {
			t.Errorf("%s at %d: %d + %d records, want %d + %d", m.Side, m.ResultBytes, m.First.Records, m.Dup.Records, records, records)
		}
		// A duplicate never runs the work, whatever the side.
		if m.Dup.Executions != 0 {
			t.Errorf("%s at %d: a duplicate ran the work %d times", m.Side, m.ResultBytes, m.Dup.Executions)
		}
		// Whatever fits is stored and replayed byte for byte.
		fits := m.Side == bench.SideDefault || m.Side == bench.SideOffloadAll || m.ResultBytes < large
		if fits && !m.Stored() {
			t.Errorf("%s at %d: not stored and replayed: %+v", m.Side, m.ResultBytes, m)
		}
		offloaded := m.Side == bench.SideOffloadAll || (m.Side == bench.SideDefault && m.ResultBytes == large)
		wantPuts, wantObjects := 0.0, 0
		if offloaded {
			wantPuts, wantObjects = 1, records
		}
		if u.Puts != wantPuts || u.DupGets != wantPuts || m.Objects != wantObjects {
			t.Errorf("%s at %d: %.2f PUTs per record, %.2f GETs per duplicate, %d objects; want %g, %g, %d",
				m.Side, m.ResultBytes, u.Puts, u.DupGets, m.Objects, wantPuts, wantPuts, wantObjects)
		}
		if offloaded && u.ItemBytes > 1024 {
			t.Errorf("%s at %d: a pointer item of %.0f bytes", m.Side, m.ResultBytes, u.ItemBytes)
		}
	}
	// Past 400 KB, Powertools fails and idemq without a bucket completes
	// the key without its result.
	if m, _ := res.Find(bench.SidePowertools, large); m.Stored() || m.First.Failures != records || !strings.Contains(m.Error, "size") {
		t.Errorf("Powertools at %d: stored %v, %d failures, error %q; want every record failed on the item's size", large, m.Stored(), m.First.Failures, m.Error)
	}
	if m, _ := res.Find(bench.SideInline, large); m.Omitted != records || m.Stored() {
		t.Errorf("idemq inline at %d: %d completed without the result, want %d", large, m.Omitted, records)
	}
	// Compression: prose gzips to under half, which keeps the answer
	// in the item.
	if g, _ := res.Find(bench.SideGzip, large); g.PerRecord().ItemBytes*2 > large || g.GzipBytes*2 > large {
		t.Errorf("at %d: gzip item %.0f bytes, %d stored: want less than half", large, g.PerRecord().ItemBytes, g.GzipBytes)
	}

	var md, img bytes.Buffer
	if err := bench.ReportSizes(&md, res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), bench.SizeSectionHeading) || !strings.Contains(md.String(), "Powertools TS") {
		t.Errorf("the size section:\n%s", md.String())
	}
	if err := bench.ChartSizes(&img, res); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&img); err != nil {
		t.Errorf("the size chart is not a PNG: %v", err)
	}
}
