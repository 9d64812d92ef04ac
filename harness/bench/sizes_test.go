package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/idemq/idemq/idem"
)

func TestWriteUnits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bytes int
		want  float64
	}{
		{0, 1}, {1, 1}, {1024, 1}, {1025, 2}, {4282, 5}, {16560, 17}, {409600, 400},
	} {
		if got := writeUnits(c.bytes); got != c.want {
			t.Errorf("writeUnits(%d) = %g, want %g", c.bytes, got, c.want)
		}
	}
}

func TestCostPerMillion(t *testing.T) {
	t.Parallel()
	month := HoursPerMonth * time.Hour
	gbPerMillion := float64(1<<30) / 1e6 // bytes per record that make a GB per million records
	for _, c := range []struct {
		name  string
		model CostModel
		use   PerRecord
		want  Cost
	}{
		{"a claim and a completion", CostModel{}, PerRecord{WriteUnits: 2}, Cost{Writes: 1.25}},
		{"a read unit", CostModel{}, PerRecord{ReadUnits: 4}, Cost{Writes: 0.5}},
		{"an S3 PUT", CostModel{}, PerRecord{WriteUnits: 2, Puts: 1}, Cost{Writes: 6.25}},
		{"one duplicate in ten, inline", CostModel{DuplicateRate: 0.1}, PerRecord{DupWriteUnits: 5}, Cost{Duplicates: 0.3125}},
		{"one duplicate in ten, offloaded", CostModel{DuplicateRate: 0.1}, PerRecord{DupWriteUnits: 1, DupGets: 1}, Cost{Duplicates: 0.1025}},
		{"no duplicates", CostModel{}, PerRecord{DupWriteUnits: 5, DupGets: 1}, Cost{}},
		{"a GB of items a month", CostModel{ItemLifetime: month}, PerRecord{ItemBytes: gbPerMillion - 100}, Cost{Storage: 0.25}},
		{"a GB of items for 40 days", CostModel{ItemLifetime: 40 * 24 * time.Hour}, PerRecord{ItemBytes: gbPerMillion - 100}, Cost{Storage: 0.25 * 960 / 730}},
		{"a GB of objects a month", CostModel{ObjectLifetime: month}, PerRecord{ObjectBytes: gbPerMillion}, Cost{Storage: 0.023}},
		{"objects kept, items not", CostModel{ObjectLifetime: month}, PerRecord{ItemBytes: 1e6}, Cost{}},
	} {
		got := c.model.PerMillion(c.use)
		if !near(got.Writes, c.want.Writes) || !near(got.Duplicates, c.want.Duplicates) || !near(got.Storage, c.want.Storage) {
			t.Errorf("%s: PerMillion(%+v) = %+v, want %+v", c.name, c.use, got, c.want)
		}
		if !near(got.Total(), c.want.Writes+c.want.Duplicates+c.want.Storage) {
			t.Errorf("%s: Total = %g", c.name, got.Total())
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBreakEven(t *testing.T) {
	t.Parallel()
	full := CostModel{DuplicateRate: 0.1, ItemLifetime: 40 * 24 * time.Hour, ObjectLifetime: 41 * 24 * time.Hour}
	for _, c := range []struct {
		name             string
		model            CostModel
		item, ptr, limit int
		want             int
	}{
		// Writes alone: offloaded, 1 unit and a PUT ($5 = 8 units) = 9
		// units; inline, 10 units from an item of 9,217 bytes.
		{"writes alone", CostModel{}, 200, 400, 1 << 20, 9017},
		// Duplicates and storage move it down: inline at 6,144 bytes of
		// item (6 units) still costs $6.037, against $6.052 offloaded;
		// at 6,145 (7 units) $6.725.
		{"duplicates and storage", full, 200, 400, 1 << 20, 5945},
		{"never within the limit", CostModel{}, 200, 400, 4096, 0},
	} {
		if got := c.model.BreakEven(c.item, c.ptr, c.limit); got != c.want {
			t.Errorf("%s: BreakEven(%d, %d) = %d, want %d", c.name, c.item, c.ptr, got, c.want)
		}
	}
}

// The break-even table prices each expiry and duplicate rate by the
// model: a longer expiry or more duplicates never move the break-even up,
// and the default expiry at 10 % is the report's own figure.
func TestBreakEvenTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	breakEvenTable(&b, 134, 337)
	out := b.String()
	rows := 0
	prev := make([]int, len(BreakEvenRates))
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| record") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 1+len(BreakEvenRates) {
			t.Fatalf("row %q: %d cells, want %d", line, len(cells), 1+len(BreakEvenRates))
		}
		left := 1 << 30
		for i, c := range cells[1:] {
			n, err := strconv.Atoi(strings.ReplaceAll(c, ",", ""))
			if err != nil {
				t.Fatalf("row %q: cell %q: %v", line, c, err)
			}
			if rows > 0 && n > prev[i] {
				t.Errorf("row %q: %d bytes, up from %d at a shorter expiry", line, n, prev[i])
			}
			if n > left {
				t.Errorf("row %q: %d bytes, up from %d with fewer duplicates", line, n, left)
			}
			prev[i], left = n, n
		}
		rows++
	}
	if rows != len(BreakEvenExpiries) {
		t.Fatalf("%d rows, want %d:\n%s", rows, len(BreakEvenExpiries), out)
	}
	full := CostModel{DuplicateRate: 0.1, ItemLifetime: idem.DefaultExpiry, ObjectLifetime: objectLifetime(idem.DefaultExpiry)}
	if want := thousands(full.BreakEven(134, 337, 1<<20)); !strings.Contains(out, fmt.Sprintf("| %d days | ", int(idem.DefaultExpiry.Hours()/24))) || !strings.Contains(out, " "+want+" |") {
		t.Errorf("no %s-byte break-even for the default expiry at 10 %%:\n%s", want, out)
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	text, err := LoadProse()
	if err != nil {
		t.Fatal(err)
	}
	ring := string(text) + string(text)
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
		answers := Answers(text, size, 3)
		for i, a := range answers {
			if len(a) != size {
				t.Errorf("answer %d of %d bytes is %d bytes", i, size, len(a))
			}
			var doc struct{ ID, Model, Content string }
			if err := json.Unmarshal(a, &doc); err != nil || !utf8.Valid(a) {
				t.Fatalf("answer %d of %d bytes is not a JSON document in UTF-8: %v", i, size, err)
			}
			// Written as JSON.stringify writes it: re-encoding gives the
			// same bytes (encoding/json escapes the same, HTML aside).
			var again bytes.Buffer
			enc := json.NewEncoder(&again)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(map[string]string{"content": doc.Content})
			if !bytes.Contains(a, bytes.TrimSuffix(again.Bytes()[len(`{"content":`):], []byte("}\n"))) {
				t.Errorf("answer %d of %d bytes is not written as encoding/json writes its content", i, size)
			}
			// The content is the text, read as a ring, padded with spaces
			// only where the last character did not fit.
			body := strings.TrimRight(doc.Content, " ")
			if len(doc.Content)-len(body) > 2 || !strings.Contains(ring, body[:min(len(body), len(text))]) {
				t.Errorf("answer %d of %d bytes is not a slice of the text: %.80q", i, size, doc.Content)
			}
		}
		if bytes.Equal(answers[0], answers[1]) || bytes.Equal(answers[1], answers[2]) {
			t.Errorf("answers of %d bytes repeat", size)
		}
	}
}

func TestReplaceSizeSection(t *testing.T) {
	t.Parallel()
	const before = "#### A\n\na\n\n"
	const after = "#### Z\n\nz\n"
	section := SizeSectionHeading + "\n\nnew\n\n"
	for _, c := range []struct{ md, want string }{
		{"", section},
		{before, before + section},
		{before + "#### A2\n\nb", before + "#### A2\n\nb\n\n" + section},
		{before + SizeSectionHeading + "\n\nold\n\n" + after, before + section + after},
		{before + SizeSectionHeading + "\n\nold\n", before + section},
	} {
		if got := ReplaceSizeSection(c.md, section); got != c.want {
			t.Errorf("ReplaceSizeSection(%q) = %q, want %q", c.md, got, c.want)
		}
	}
}

func TestSizeTarget(t *testing.T) {
	t.Parallel()
	row := func(side string, size int, wu float64, failed int) SizeMeasurement {
		return SizeMeasurement{Side: side, ResultBytes: size, Replayed: 10 - failed,
			First: Sample{Records: 10, WriteUnits: 10 * wu, Failures: failed}, Dup: Sample{Records: 10, Failures: failed}}
	}
	for _, c := range []struct {
		name string
		rows []SizeMeasurement
		want bool
	}{
		{"half", []SizeMeasurement{row(SideDefault, 4096, 3, 0), row(SidePowertools, 4096, 6, 0)}, true},
		{"more than half", []SizeMeasurement{row(SideDefault, 4096, 4, 0), row(SidePowertools, 4096, 6, 0)}, false},
		{"under 4 KiB does not count", []SizeMeasurement{row(SideDefault, 1024, 3, 0), row(SidePowertools, 1024, 3, 0)}, true},
		{"Powertools cannot store it", []SizeMeasurement{row(SideDefault, 1<<20, 2, 0), row(SidePowertools, 1<<20, 1, 10)}, true},
		{"neither can", []SizeMeasurement{row(SideDefault, 1<<20, 2, 10), row(SidePowertools, 1<<20, 1, 10)}, false},
	} {
		if got, result := SizeTarget(&SizeResults{Rows: c.rows}); got != c.want {
			t.Errorf("%s: SizeTarget = %v (%s), want %v", c.name, got, result, c.want)
		}
	}
}
