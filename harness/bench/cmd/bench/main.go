// Command bench measures what a record costs with idemq, the raw-SDK floor
// and Powertools for AWS Lambda (TypeScript), side by side against one
// DynamoDB Local (and, for what a result costs by size, moto's S3), and
// writes the results under -out: bench.md (markdown tables, the issue's
// targets met or not), bench.png (a chart), cost-by-size.png (dollars per
// million records against the result's size) and bench.json (every
// sample). -price measures only what a result costs by size, in a few
// minutes, and replaces that part of the three files. With -gobench it reports the in-memory
// handler benchmarks `make bench-go` wrote too; -render draws the report
// and the chart again from a bench.json without measuring (with -gobench,
// putting a newer run of those benchmarks in its place).
//
// Before each round it waits until the 1-minute load average is under
// -quiet-load (1.5) and the machine's CPU, watched for 5 s while the run
// idles, under -quiet-busy (0.2) busy, for at most -quiet-timeout, and it
// records both at every round's start, and the load at its end. A -cpu-only run whose measured rounds did
// not all start under it is written to bench-cpu-loaded.md and .json, not
// over the published bench-cpu.md and .json, and exits with status 1.
//
//	scripts/with-dynamodb.sh go run ./bench/cmd/bench   # make bench does this
//
// It needs IDEMQ_DYNAMODB_ENDPOINT (scripts/with-dynamodb.sh sets it),
// IDEMQ_TEST_S3_ENDPOINT (scripts/with-s3.sh; unless -by-size=false),
// bench/powertools/node_modules (make deps-bench) and, for the start-up,
// bin/aws-lambda-rie (make rie). Run it from the module's root.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/idemq/idemq/harness/bench"
	"github.com/idemq/idemq/harness/internal/repo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	var (
		out          = flag.String("out", "results", "directory for bench.md, bench.png and bench.json")
		sizes        = flag.String("sizes", "10,100,1000", "batch sizes, comma-separated (even numbers)")
		models       = flag.String("models", "0ms,20ms", "simulated model call durations, comma-separated")
		records      = flag.Int("records", 1000, "records per scenario trial (at least the largest batch size)")
		thrRecords   = flag.Int("throughput-records", 3000, "records per first-delivery throughput trial (at least the largest batch size)")
		serverWarmup = flag.Duration("server-warmup", time.Minute, "how long DynamoDB Local is loaded before anything is measured")
		runs         = flag.Int("runs", 7, "measured runs (rounds) per implementation and condition")
		scenarioSize = flag.Int("scenario-size", 100, "batch size of the scenario runs")
		goBench      = flag.String("gobench", "", "`go test -bench` output to report (make bench-go writes results/bench-go.txt)")
		startup      = flag.Bool("startup", true, "measure the worker's start-up under the Runtime Interface Emulator")
		rie          = flag.String("rie", "bin/aws-lambda-rie", "path of aws-lambda-rie")
		starts       = flag.Int("starts", 5, "cold starts for the start-up measurement")
		short        = flag.Bool("short", false, "one size (10), one run, 20 records, no warm-up: checks the harness")
		render       = flag.String("render", "", "measure nothing: write bench.md and bench.png again from this bench.json")
		priceOnly    = flag.Bool("price", false, "measure only what a result costs by size (a few minutes): replace that section of bench.md, BySize in bench.json and cost-by-size.png under -out")
		bySize       = flag.Bool("by-size", true, "with the rest, measure what a result costs by size (needs "+bench.S3EndpointEnv+": make bench runs under scripts/with-s3.sh)")
		priceSizes   = flag.String("price-sizes", "", "answer sizes in bytes, comma-separated (default 1, 4, 16, 64, 256 KiB, 1 and 4 MiB)")
		priceRecords = flag.Int("price-records", 200, "records per side and answer size (each delivered twice)")
		dupRate      = flag.Float64("dup-rate", 0.1, "duplicates per record the costs by size assume (0.1: one record in ten delivered twice)")
		cpuOnly      = flag.Bool("cpu-only", false, "first delivery alone, idemq and Powertools alone, no start-up: client CPU per record into bench-cpu.md and bench-cpu.json (bench-cpu-loaded.* when the machine was not quiet)")
		quietLoad    = flag.Float64("quiet-load", bench.DefaultQuietLoad, "before each round, wait until the 1-minute load average is under this (0: do not wait, and call no table quiet)")
		quietBusy    = flag.Float64("quiet-busy", bench.DefaultQuietBusy, "and until the machine's CPU, watched for 5 s while the run idles, is less busy than this share (0 to 1; 1: not checked)")
		quietTimeout = flag.Duration("quiet-timeout", bench.DefaultQuietTimeout, "the longest one wait for a quiet machine lasts; after it the run goes on without waiting, marked not quiet")
	)
	flag.Parse()
	var micro []bench.MicroResult
	if *goBench != "" {
		f, err := os.Open(*goBench)
		if err != nil {
			return fmt.Errorf("-gobench: %w (make bench-go writes it)", err)
		}
		micro, err = bench.ParseGoBench(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("-gobench %s: %w", *goBench, err)
		}
	}
	if *render != "" && *priceOnly {
		return rerenderPrice(*render, *out)
	}
	if *render != "" {
		return rerender(*render, *out, micro)
	}
	root, err := repo.Root()
	if err != nil {
		return err
	}
	price := &bench.SizeConfig{S3Endpoint: os.Getenv(bench.S3EndpointEnv), Records: *priceRecords, DuplicateRate: *dupRate, Log: os.Stderr}
	if *dupRate == 0 {
		price.DuplicateRate = -1 // none
	}
	if *priceSizes != "" {
		for f := range strings.SplitSeq(*priceSizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 64 {
				return fmt.Errorf("-price-sizes: %q: want sizes in bytes, at least 64", f)
			}
			price.Sizes = append(price.Sizes, n)
		}
	}
	if *priceRecords < 2 {
		return fmt.Errorf("-price-records: want at least 2")
	}
	if *priceOnly {
		return measurePrice(root, *out, *price)
	}
	cfg := bench.Config{Root: root, Records: *records, ThroughputRecords: *thrRecords, Runs: *runs, ServerWarmup: *serverWarmup, ScenarioSize: *scenarioSize, Log: os.Stderr}
	if cfg.Sizes, err = ints(*sizes); err != nil {
		return fmt.Errorf("-sizes: %w", err)
	}
	if cfg.Models, err = durations(*models); err != nil {
		return fmt.Errorf("-models: %w", err)
	}
	if *startup {
		cfg.Startup = &bench.StartupConfig{RIE: *rie, Starts: *starts}
	}
	if *bySize && !*cpuOnly {
		cfg.Price = price
	}
	cfg.CPUOnly = *cpuOnly
	if *quietLoad < 0 || !(*quietBusy > 0) || *quietTimeout <= 0 {
		return fmt.Errorf("-quiet-load %g, -quiet-busy %g, -quiet-timeout %s: want a load of at least 0 (0: no waiting), a busy share over 0 and a positive timeout",
			*quietLoad, *quietBusy, *quietTimeout)
	}
	cfg.Quiet = bench.Quiet{Load: *quietLoad, Busy: *quietBusy, Timeout: *quietTimeout}
	if *short {
		cfg.Sizes, cfg.Runs, cfg.Records, cfg.ThroughputRecords, cfg.ScenarioSize, cfg.NoWarmup = []int{10}, 1, 20, 20, 10, true
		cfg.Quiet = bench.Quiet{} // a check of the harness waits for nothing
		if cfg.Startup != nil {
			cfg.Startup.Starts = 1
		}
		price.Sizes, price.Records = []int{1 << 10, 16 << 10}, 20
	}
	if _, err := os.Stat("go.mod"); err != nil {
		return fmt.Errorf("bench: run it from the module's root (no go.mod here): %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	res, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *cpuOnly {
		return writeCPU(*out, res)
	}
	res.Micro = micro
	return write(*out, res, true)
}

// measurePrice runs only the size scenarios, with DynamoDB Local at
// $IDEMQ_DYNAMODB_ENDPOINT and moto's S3 at $IDEMQ_TEST_S3_ENDPOINT, and
// puts them in dir's bench.md (its size section), bench.json (BySize;
// the rest as it was) and cost-by-size.png.
func measurePrice(root, dir string, cfg bench.SizeConfig) error {
	cfg.Endpoint = os.Getenv(bench.EndpointEnv)
	if cfg.Endpoint == "" {
		return fmt.Errorf("bench: %s is not set: run under scripts/with-dynamodb.sh (make bench-sizes does)", bench.EndpointEnv)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pt, err := bench.StartPowertools(ctx, filepath.Join(root, bench.PowertoolsDir), cfg.Endpoint)
	if err != nil {
		return err
	}
	defer pt.Close()
	sr, err := bench.MeasureSizes(ctx, cfg, pt)
	if err != nil {
		return err
	}
	return writePrice(dir, sr)
}

// rerenderPrice writes the size section of dir's bench.md and
// cost-by-size.png again from file's BySize, as the code now draws them.
func rerenderPrice(file, dir string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var res bench.Results
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("-render %s: %w", file, err)
	}
	if res.BySize == nil {
		return fmt.Errorf("-render %s: no BySize to render (make bench-sizes measures it)", file)
	}
	return writePrice(dir, res.BySize)
}

// writePrice puts sr in dir: the size section of bench.md, BySize in
// bench.json (the rest as it was) and cost-by-size.png.
func writePrice(dir string, sr *bench.SizeResults) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var res bench.Results
	jsonFile := filepath.Join(dir, "bench.json")
	if raw, err := os.ReadFile(jsonFile); err == nil {
		if err := json.Unmarshal(raw, &res); err != nil {
			return fmt.Errorf("bench: %s: %w", jsonFile, err)
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	res.BySize = sr
	raw, err := json.MarshalIndent(&res, "", "  ")
	if err != nil {
		return err
	}
	var section, png bytes.Buffer
	if err := bench.ReportSizes(&section, sr); err != nil {
		return err
	}
	if err := bench.ChartSizes(&png, sr); err != nil {
		return err
	}
	mdFile := filepath.Join(dir, "bench.md")
	md, err := os.ReadFile(mdFile)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{mdFile, []byte(bench.ReplaceSizeSection(string(md), section.String()))},
		{jsonFile, append(raw, '\n')},
		{filepath.Join(dir, "cost-by-size.png"), png.Bytes()},
	}
	for _, f := range files {
		if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
			return err
		}
	}
	_, err = os.Stdout.Write(section.Bytes())
	fmt.Fprintf(os.Stderr, "bench: wrote the size section of %s, BySize in %s, and %s\n", mdFile, jsonFile, files[2].name)
	return err
}

// rerender writes the report and the chart of a saved run again, as the
// report's code now draws them; micro, when not nil, replaces the run's
// in-memory handler benchmarks (a newer make bench-go).
func rerender(file, dir string, micro []bench.MicroResult) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var res bench.Results
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("-render %s: %w", file, err)
	}
	if res.CPUOnly {
		return writeCPU(dir, &res)
	}
	if micro != nil {
		res.Micro = micro
		return write(dir, &res, true)
	}
	return write(dir, &res, false)
}

// write puts the report, the chart and (with samples) the samples in dir,
// and the report on stdout.
func write(dir string, res *bench.Results, samples bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md, png bytes.Buffer
	if err := bench.Report(&md, res); err != nil {
		return err
	}
	if err := bench.Chart(&png, res); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{"bench.md": md.Bytes(), "bench.png": png.Bytes()}
	if samples {
		files["bench.json"] = append(raw, '\n')
	}
	if res.BySize != nil {
		var sizes bytes.Buffer
		if err := bench.ChartSizes(&sizes, res.BySize); err != nil {
			return err
		}
		files["cost-by-size.png"] = sizes.Bytes()
	}
	var wrote []string
	for _, name := range []string{"bench.md", "bench.png", "bench.json", "cost-by-size.png"} {
		if b, ok := files[name]; ok {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return err
			}
			wrote = append(wrote, filepath.Join(dir, name))
		}
	}
	_, err = os.Stdout.Write(md.Bytes())
	fmt.Fprintf(os.Stderr, "bench: wrote %s\n", strings.Join(wrote, ", "))
	return err
}

func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 || n%2 != 0 {
			return nil, fmt.Errorf("%q: want even numbers of at least 2", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func durations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for f := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q: want Go durations like 0ms or 20ms", f)
		}
		out = append(out, d)
	}
	return out, nil
}

// writeCPU puts the report of a -cpu-only run (bench.CPUReport) and its
// samples in dir, under the names bench.CPUFiles gives, and the report on
// stdout. A run that was not quiet goes to bench-cpu-loaded.*, leaving
// the published bench-cpu.* as they were, and is an error once written.
func writeCPU(dir string, res *bench.Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md bytes.Buffer
	if err := bench.CPUReport(&md, res); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	mdName, jsonName, notQuiet := bench.CPUFiles(res)
	mdFile, jsonFile := filepath.Join(dir, mdName), filepath.Join(dir, jsonName)
	if err := os.WriteFile(mdFile, md.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(jsonFile, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	if _, err := os.Stdout.Write(md.Bytes()); err != nil {
		return err
	}
	if notQuiet != nil {
		return fmt.Errorf("%w; wrote %s and %s, and left %s as it was", notQuiet, mdFile, jsonFile, filepath.Join(dir, "bench-cpu.md"))
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s and %s\n", mdFile, jsonFile)
	return nil
}
