package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// PowertoolsDir is where the Powertools driver and its pinned packages
// live, from the repository's root.
const PowertoolsDir = "harness/bench/powertools"

// PowertoolsVersion is the Powertools for AWS Lambda (TypeScript) release
// bench/powertools/package.json pins.
const PowertoolsVersion = "2.35.0"

// Powertools runs trials with Powertools for AWS Lambda (TypeScript) in a
// Node process of its own (bench/powertools/driver.mjs), which lives as
// long as the Powertools value, as a warm container would. It is not safe
// for concurrent use.
type Powertools struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	lines    *bufio.Scanner
	stderr   *tailBuffer
	Node     string            // the Node version
	Versions map[string]string // package → installed version
}

// StartPowertools starts the driver in dir (bench/powertools, with its
// node_modules installed by `make deps-bench`) against DynamoDB Local at
// endpoint, and waits until it is ready.
func StartPowertools(ctx context.Context, dir, endpoint string) (*Powertools, error) {
	for _, p := range []string{"node_modules/@aws-lambda-powertools/idempotency", "node_modules/@aws-lambda-powertools/batch"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return nil, fmt.Errorf("bench: Powertools is not installed in %s (%v): run `make deps-bench`", dir, err)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("bench: node is not on PATH: the Powertools side needs Node.js 20 or later: %w", err)
	}
	cmd := exec.Command(node, "--expose-gc", "driver.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		EndpointEnv+"="+endpoint,
		"AWS_ACCESS_KEY_ID="+accessKey, "AWS_SECRET_ACCESS_KEY="+accessKey, "AWS_SESSION_TOKEN=",
		"AWS_REGION="+region, "AWS_EC2_METADATA_DISABLED=true",
		"AWS_LAMBDA_FUNCTION_NAME=bench",
	)
	p := &Powertools{cmd: cmd, stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stderr = p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.lines = bufio.NewScanner(stdout)
	p.lines.Buffer(make([]byte, 64<<10), 16<<20)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start the Powertools driver: %w", err)
	}
	var ready struct {
		Ready    bool              `json:"ready"`
		Node     string            `json:"node"`
		Versions map[string]string `json:"versions"`
	}
	if err := p.read(ctx, &ready); err != nil || !ready.Ready {
		p.Close()
		return nil, fmt.Errorf("bench: the Powertools driver did not start: %v", err)
	}
	p.Node, p.Versions = ready.Node, ready.Versions
	if v := p.Versions["@aws-lambda-powertools/idempotency"]; v != PowertoolsVersion {
		p.Close()
		return nil, fmt.Errorf("bench: Powertools idempotency %s installed, want %s: run `make deps-bench`", v, PowertoolsVersion)
	}
	return p, nil
}

// ID implements Runner.
func (p *Powertools) ID() string { return "powertools" }

// wireTrial is a Trial as the driver reads it.
type wireTrial struct {
	Table        string            `json:"table"`
	ModelMs      float64           `json:"modelMs"`
	CacheEntries int               `json:"cacheEntries"`
	Prep         Prep              `json:"prep"`
	PrepBatches  []events.SQSEvent `json:"prepBatches"`
	Batches      []events.SQSEvent `json:"batches"`
	Answers      []string          `json:"answers,omitempty"` // JSON documents: Trial.Answers
	SettleMs     float64           `json:"settleMs"`
}

// Run implements Runner: the driver runs the trial with the handler every
// record of a batch runs at once in (Powertools' BatchProcessor default).
func (p *Powertools) Run(ctx context.Context, t Trial) (Sample, error) {
	w := wireTrial{Table: t.Table, ModelMs: float64(t.Model) / float64(time.Millisecond),
		Prep: t.Prep, PrepBatches: t.PrepBatches, Batches: t.Batches,
		SettleMs: float64(settleIdle) / float64(time.Millisecond)}
	for _, a := range t.Answers {
		w.Answers = append(w.Answers, string(a))
	}
	if t.Cache {
		w.CacheEntries = max(1000, t.Records())
	}
	line, err := json.Marshal(w)
	if err != nil {
		return Sample{}, err
	}
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		return Sample{}, fmt.Errorf("bench: send a trial to the Powertools driver: %w; its stderr:\n%s", err, p.stderr)
	}
	var r struct {
		Error      string         `json:"error"`
		Records    int            `json:"records"`
		WallNs     float64        `json:"wallNs"`
		CPUUs      float64        `json:"cpuUs"`
		CPUMarksUs []float64      `json:"cpuMarksUs"`
		CPUTailUs  float64        `json:"cpuTailUs"`
		Requests   map[string]int `json:"requests"`
		Retries    int            `json:"retries"`
		WriteUnits float64        `json:"writeUnits"`
		ReadUnits  float64        `json:"readUnits"`
		Failures   int            `json:"failures"`
		Executions int            `json:"executions"`
		FirstError string         `json:"firstError"`
	}
	if err := p.read(ctx, &r); err != nil {
		return Sample{}, err
	}
	if r.Error != "" {
		return Sample{}, fmt.Errorf("bench: powertools: %s", r.Error)
	}
	marks := make([]time.Duration, len(r.CPUMarksUs))
	for i, us := range r.CPUMarksUs {
		marks[i] = time.Duration(us * 1e3)
	}
	return Sample{Records: r.Records, Wall: time.Duration(r.WallNs), CPU: time.Duration(r.CPUUs * 1e3),
		CPUMarks: marks, BatchRecords: batchRecords(t.Batches), CPUTail: time.Duration(r.CPUTailUs * 1e3),
		Requests: r.Requests, Retries: r.Retries, WriteUnits: r.WriteUnits, ReadUnits: r.ReadUnits,
		Failures: r.Failures, Executions: r.Executions, Error: r.FirstError}, nil
}

// read decodes the driver's next line into v, giving up when ctx ends.
func (p *Powertools) read(ctx context.Context, v any) error {
	got := make(chan error, 1)
	go func() {
		if !p.lines.Scan() {
			err := p.lines.Err()
			if err == nil {
				err = io.EOF
			}
			got <- fmt.Errorf("bench: the Powertools driver stopped answering: %w; its stderr:\n%s", err, p.stderr)
			return
		}
		if err := json.Unmarshal(p.lines.Bytes(), v); err != nil {
			got <- fmt.Errorf("bench: the Powertools driver wrote %.200q: %w", p.lines.Text(), err)
			return
		}
		got <- nil
	}()
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		return ctx.Err()
	}
}

// Close stops the driver.
func (p *Powertools) Close() error {
	_ = p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("bench: the Powertools driver: %w; its stderr:\n%s", err, p.stderr)
		}
		return err
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		return <-done
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
