package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/internal/rie"
)

// Instance is one function instance: the reference worker (bootstrap)
// under its own Lambda Runtime Interface Emulator, which takes one
// invocation at a time. It is a loadtest.Invoker and a
// loadtest.Killer.
type Instance struct {
	name      string
	rieBin    string
	bootstrap string
	env       []string
	timeout   time.Duration
	logs      *logBuffer // everything the emulator and the worker printed, across restarts
	client    *http.Client

	mu     sync.Mutex
	emu    *rie.Emulator
	starts int
}

// InstanceConfig says how to run an Instance.
type InstanceConfig struct {
	Name      string
	RIE       string        // path of aws-lambda-rie
	Bootstrap string        // path of the worker built for this machine
	Env       []string      // the worker's environment, KEY=value
	Timeout   time.Duration // the function timeout (whole seconds)
}

// StartInstance starts the emulator and waits until it listens.
func StartInstance(ctx context.Context, c InstanceConfig) (*Instance, error) {
	in := &Instance{
		name: c.Name, rieBin: c.RIE, bootstrap: c.Bootstrap, env: c.Env, timeout: c.Timeout,
		logs:   &logBuffer{},
		client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in, in.start(ctx)
}

// start launches the emulator; in.mu is held. A start that fails is tried
// again on other ports, three times in all.
func (in *Instance) start(ctx context.Context) error {
	var lastErr error
	for range 3 {
		e, err := rie.Start(ctx, rie.Config{
			RIE: in.rieBin, Bootstrap: in.bootstrap,
			Env: append([]string{
				"LOG_LEVEL=error",
				"AWS_LAMBDA_FUNCTION_TIMEOUT=" + strconv.Itoa(int(in.timeout/time.Second)),
			}, in.env...),
			Output:  in.logs,
			Wait:    10 * time.Second,
			Prepare: ownGroup,
			Kill:    killGroup,
		})
		if errors.Is(err, rie.ErrNotListening) {
			lastErr = fmt.Errorf("pipeline: instance %s: %w; its output:\n%s", in.name, err, in.logs.tail(2000))
			continue
		}
		if err != nil {
			return err
		}
		in.emu, in.starts = e, in.starts+1
		return nil
	}
	return lastErr
}

// Invoke implements loadtest.Invoker: one POST to the emulator. An
// instance found dead (killed during its last call) is started again
// first. The emulator enforces the function timeout; the request waits a
// little longer for its answer.
func (in *Instance) Invoke(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	url, exited, err := in.ready(ctx)
	if err != nil {
		return events.SQSEventResponse{}, err
	}
	payload, err := json.Marshal(event)
	if err != nil {
		return events.SQSEventResponse{}, err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), in.timeout+5*time.Second)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			cancel()
		}
	})
	defer stop()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return events.SQSEventResponse{}, err
	}
	resp, err := in.client.Do(req)
	var body []byte
	if err == nil {
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		// Killed during the call? The emulator's exit is seen a moment
		// after its connection drops.
		select {
		case <-exited:
			return events.SQSEventResponse{}, fmt.Errorf("instance %s: %w", in.name, loadtest.ErrCrashed)
		case <-time.After(time.Second):
		}
	}
	if err != nil {
		return events.SQSEventResponse{}, fmt.Errorf("instance %s: %w", in.name, err)
	}
	return decodeResponse(resp.StatusCode, body)
}

// decodeResponse reads the function's answer as Lambda does: empty or null
// is full success; anything but a partial batch response is an error (a
// function error, a timeout message, a wrong member name).
func decodeResponse(status int, body []byte) (events.SQSEventResponse, error) {
	var out events.SQSEventResponse
	trimmed := bytes.TrimSpace(body)
	if status != http.StatusOK {
		return out, fmt.Errorf("pipeline: emulator answered HTTP %d: %.300s", status, trimmed)
	}
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return out, fmt.Errorf("pipeline: not a partial batch response: %.300s", trimmed)
	}
	return out, nil
}

// ready returns the emulator's URL, restarting it if it died.
func (in *Instance) ready(ctx context.Context) (string, <-chan struct{}, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	select {
	case <-in.emu.Exited():
		if err := in.start(ctx); err != nil {
			return "", nil, err
		}
	default:
	}
	return in.emu.URL(), in.emu.Exited(), nil
}

// Crash kills the emulator and the worker at once, wherever they are; the
// next Invoke starts them again.
func (in *Instance) Crash() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.emu.Kill()
}

// Kill implements loadtest.Killer: Crash, then start again.
func (in *Instance) Kill(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.emu.Kill()
	return in.start(ctx)
}

// Close stops the instance.
func (in *Instance) Close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.emu.Kill()
}

// Starts returns how many times the emulator was started (1 + restarts).
func (in *Instance) Starts() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.starts
}

// Logs returns what the emulator and the worker printed.
func (in *Instance) Logs() string { return in.logs.String() }

var (
	_ loadtest.Invoker = (*Instance)(nil)
	_ loadtest.Killer  = (*Instance)(nil)
)
