package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/idemq/idemq/internal/rie"
)

// StartupConfig says how MeasureStartup runs.
type StartupConfig struct {
	// Root is the module's root; ./lambda is built from it.
	Root string
	// RIE is the path of aws-lambda-rie (`make rie` installs bin/aws-lambda-rie).
	RIE string
	// Archs are the GOARCHs the worker is built and sized for. Defaults to
	// arm64 (what infra/ deploys) and amd64.
	Archs []string
	// Starts is the number of cold starts, each in a new emulator.
	// Defaults to 5.
	Starts int
	// Endpoint and Table are the DynamoDB Local and the table the worker is
	// configured with (its DynamoDB store is built at init).
	Endpoint, Table string
	// Bootstrap, when set, is the worker already built for this machine's
	// arch as `make build-lambda` builds it (rie.Bootstrap: the one a test
	// run shares): it is sized and cold-started rather than built again.
	// Defaults to building it.
	Bootstrap string
}

// StartupResult is the worker's start-up.
type StartupResult struct {
	Sizes map[string]int64 // GOARCH → bytes of bootstrap, built as `make build-lambda` builds it
	Arch  string           // the GOARCH the cold starts ran
	// Init is the emulator's INIT REPORT duration of each cold start: from
	// the start of the init phase until the runtime asks for its first
	// event (process start, Go runtime, configuration, SDK clients).
	Init []time.Duration
	// FirstInvoke is each cold start's first invocation (an empty batch)
	// as the client saw it: init included. WarmInvoke is the second.
	FirstInvoke, WarmInvoke []time.Duration
}

// MedianInit is the median init duration.
func (r StartupResult) MedianInit() time.Duration { return medianDuration(r.Init) }

// MedianFirst is the median first invocation, init included.
func (r StartupResult) MedianFirst() time.Duration { return medianDuration(r.FirstInvoke) }

// MedianWarm is the median second invocation.
func (r StartupResult) MedianWarm() time.Duration { return medianDuration(r.WarmInvoke) }

func medianDuration(d []time.Duration) time.Duration {
	v := make([]float64, len(d))
	for i, x := range d {
		v[i] = float64(x)
	}
	return time.Duration(median(v))
}

// MeasureStartup builds the worker (lambda/) for each arch as
// `make build-lambda` does (rie.BuildBootstrap; for this machine's arch,
// unless cfg.Bootstrap is given), and cold-starts the build for this
// machine's arch under the Lambda Runtime Interface Emulator, cfg.Starts
// times.
func MeasureStartup(ctx context.Context, cfg StartupConfig) (*StartupResult, error) {
	if runtime.GOOS != "linux" {
		return nil, errors.New("bench: the start-up is measured on Linux (the emulator runs a linux bootstrap)")
	}
	if len(cfg.Archs) == 0 {
		cfg.Archs = []string{"arm64", "amd64"}
	}
	if cfg.Starts == 0 {
		cfg.Starts = 5
	}
	rieBin, err := rie.Find(cfg.RIE)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	cfg.RIE = rieBin
	dir, err := os.MkdirTemp("", "idemq-bench-startup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	res := &StartupResult{Sizes: make(map[string]int64), Arch: runtime.GOARCH}
	archs := cfg.Archs
	if !slices.Contains(archs, runtime.GOARCH) {
		archs = append(slices.Clone(archs), runtime.GOARCH)
	}
	bootstrap := cfg.Bootstrap
	for _, arch := range archs {
		out := filepath.Join(dir, arch, "bootstrap")
		if arch == runtime.GOARCH && bootstrap != "" {
			out = bootstrap
		} else if err := rie.BuildBootstrap(ctx, cfg.Root, arch, out); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		if arch == runtime.GOARCH {
			bootstrap = out
		}
		fi, err := os.Stat(out)
		if err != nil {
			return nil, err
		}
		if slices.Contains(cfg.Archs, arch) {
			res.Sizes[arch] = fi.Size()
		}
	}
	for range cfg.Starts {
		initD, first, warm, err := coldStart(ctx, cfg, bootstrap, dir)
		if err != nil {
			return nil, err
		}
		res.Init = append(res.Init, initD)
		res.FirstInvoke = append(res.FirstInvoke, first)
		res.WarmInvoke = append(res.WarmInvoke, warm)
	}
	return res, nil
}

var initReport = regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`)

// coldStart runs the bootstrap in a new emulator, invokes it twice with an
// empty batch, and returns the init phase's duration and both
// invocations' durations as the client saw them.
func coldStart(ctx context.Context, cfg StartupConfig, bootstrap, home string) (initD, first, warm time.Duration, err error) {
	var out tailBuffer
	out.max = 64 << 10
	emu, err := rie.Start(ctx, rie.Config{
		RIE: cfg.RIE, Bootstrap: bootstrap, Dir: filepath.Dir(bootstrap), LogLevel: "info",
		Env: []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + home,
			"AWS_LAMBDA_FUNCTION_NAME=idemq-bench", "AWS_LAMBDA_FUNCTION_TIMEOUT=60", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256",
			"AWS_REGION=" + region, "AWS_ACCESS_KEY_ID=" + accessKey, "AWS_SECRET_ACCESS_KEY=" + accessKey,
			"AWS_EC2_METADATA_DISABLED=true",
			"AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1", // the start-up's read of the mappings: refused at once
			"IDEMQ_TABLE=" + cfg.Table, "IDEMQ_DYNAMODB_ENDPOINT=" + cfg.Endpoint,
			"IDEMQ_PROVIDER_URL=http://127.0.0.1:9/v1", // never called: the batches are empty
			"IDEMQ_RECORD_EXPIRY=120h",
		},
		Output: &out,
	})
	if errors.Is(err, rie.ErrNotListening) {
		return 0, 0, 0, fmt.Errorf("bench: %w; its output:\n%s", err, out.String())
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bench: start the emulator: %w", err)
	}
	defer emu.Kill()
	url := emu.URL()
	if first, err = invoke(ctx, url); err != nil {
		return 0, 0, 0, fmt.Errorf("bench: first invocation: %w; output:\n%s", err, out.String())
	}
	if warm, err = invoke(ctx, url); err != nil {
		return 0, 0, 0, fmt.Errorf("bench: second invocation: %w; output:\n%s", err, out.String())
	}
	// The emulator logs the report as the init ends, before the answer.
	m := initReport.FindStringSubmatch(out.String())
	if m == nil {
		return 0, 0, 0, fmt.Errorf("bench: no INIT REPORT in the emulator's output:\n%s", out.String())
	}
	ms, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, 0, 0, err
	}
	return time.Duration(ms * float64(time.Millisecond)), first, warm, nil
}

// invoke posts an empty SQS batch and returns how long the answer took.
func invoke(ctx context.Context, url string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(`{"Records":[]}`)))
	if err != nil {
		return 0, err
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	d := time.Since(start)
	if resp.StatusCode != http.StatusOK || bytes.Contains(body.Bytes(), []byte("errorMessage")) {
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, body.Bytes())
	}
	return d, nil
}
