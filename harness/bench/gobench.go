package bench

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The benchmark families ParseGoBench reads.
var goBenchFamilies = []string{"Handler", "SDK", "Tracing", "Heartbeat"}

// ParseGoBench reads `go test -bench 'Handler|SDK|Tracing|Heartbeat' ./bench` output (what
// `make bench-go` writes to results/bench-go.txt, in the format benchstat
// reads) and returns each BenchmarkHandler and BenchmarkSDK
// sub-benchmark's median ns/record, allocs/record and B/record over its
// counts, in the order they first appear.
func ParseGoBench(r io.Reader) ([]MicroResult, error) {
	type values struct{ ns, allocs, bytes, extends []float64 }
	type id struct{ family, name string }
	var order []id
	seen := map[id]*values{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			continue
		}
		var k id
		for _, fam := range goBenchFamilies {
			if name, ok := strings.CutPrefix(f[0], "Benchmark"+fam+"/"); ok {
				k = id{fam, name}
			}
		}
		if k.family == "" {
			continue
		}
		if i := strings.LastIndexByte(k.name, '-'); i > 0 { // the GOMAXPROCS suffix
			if _, err := strconv.Atoi(k.name[i+1:]); err == nil {
				k.name = k.name[:i]
			}
		}
		v := seen[k]
		if v == nil {
			v = &values{}
			seen[k] = v
			order = append(order, k)
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
			case "extends/record":
				v.extends = append(v.extends, x)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("bench: no BenchmarkHandler or BenchmarkSDK results")
	}
	var out []MicroResult
	for _, k := range order {
		v := seen[k]
		m := MicroResult{Family: k.family, Name: k.name,
			NsPerRecord: median(v.ns), AllocsPerRecord: median(v.allocs), BytesPerRecord: median(v.bytes)}
		if len(v.extends) > 0 {
			m.ExtendsPerRecord = median(v.extends)
		}
		out = append(out, m)
	}
	return out, nil
}
