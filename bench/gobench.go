package bench

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ParseGoBench reads `go test -bench Handler ./bench` output (what
// `make bench-go` writes to results/bench-go.txt, in the format benchstat
// reads) and returns each BenchmarkHandler sub-benchmark's median
// ns/record, allocs/record and B/record over its counts, in the order
// they first appear.
func ParseGoBench(r io.Reader) ([]MicroResult, error) {
	type values struct{ ns, allocs, bytes []float64 }
	var order []string
	seen := map[string]*values{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkHandler/") {
			continue
		}
		name := strings.TrimPrefix(f[0], "BenchmarkHandler/")
		if i := strings.LastIndexByte(name, '-'); i > 0 { // the GOMAXPROCS suffix
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		v := seen[name]
		if v == nil {
			v = &values{}
			seen[name] = v
			order = append(order, name)
		}
		for i := 2; i+1 < len(f); i += 2 {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("bench: %q: %w", sc.Text(), err)
			}
			switch f[i+1] {
			case "ns/record":
				v.ns = append(v.ns, x)
			case "allocs/record":
				v.allocs = append(v.allocs, x)
			case "B/record":
				v.bytes = append(v.bytes, x)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("bench: no BenchmarkHandler results")
	}
	var out []MicroResult
	for _, name := range order {
		v := seen[name]
		out = append(out, MicroResult{Name: name, NsPerRecord: median(v.ns), AllocsPerRecord: median(v.allocs), BytesPerRecord: median(v.bytes)})
	}
	return out, nil
}

// median returns the median of v (the mean of the middle two when their
// number is even); 0 when v is empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
