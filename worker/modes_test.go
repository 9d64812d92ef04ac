package worker_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/worker"
)

// read reads kv as the environment, and fails the test on a bad one.
func read(t *testing.T, kv map[string]string) idemqenv.Settings {
	t.Helper()
	s, err := idemqenv.Read(lookup(kv))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The front door is wired from its settings by the same place as the
// worker: over the store the settings name, sending to its queue. A scope
// by IAM caller needs the caller's scope given in code, which only the
// code serving the front door can tell: without it the front door is
// refused, never one key space shared by every caller.
func TestNewFrontDoor(t *testing.T) {
	t.Parallel()
	env := map[string]string{"IDEMQ_MODE": "frontdoor", "IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n",
		"IDEMQ_FRONTDOOR_QUEUE_URL": "http://127.0.0.1:1/000000000000/requests"}
	_, err := worker.NewFrontDoor(context.Background(), read(t, env), quiet, testAWS)
	if err == nil || !strings.Contains(err.Error(), "IDEMQ_FRONTDOOR_SCOPE=iam: the front door cannot tell a request's caller") {
		t.Errorf("an IAM scope without the caller's: %v", err)
	}
	byHeader := worker.WithFrontDoorOptions(frontdoor.WithScope(func(r *http.Request) (string, error) { return r.Header.Get("X-Caller"), nil }))
	w, err := worker.NewFrontDoor(context.Background(), read(t, env), quiet, testAWS, byHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.FrontDoor == nil || w.Store == nil || w.Handler != nil || w.Consumer != nil {
		t.Errorf("front door %+v; want a front door over a store, no handler", w)
	}
	if err := w.Run(context.Background()); err == nil {
		t.Error("Run served a Worker without a handler")
	}

	// A worker's option is no front door's.
	if _, err := worker.NewFrontDoor(context.Background(), read(t, env), quiet, byHeader, worker.WithHandlerOptions(handler.WithConcurrency(2))); err == nil ||
		!strings.Contains(err.Error(), "HandlerOptions") {
		t.Errorf("handler options given to the front door: %v", err)
	}
}

// The dispatcher is wired from its settings by the same place: its
// handler starts durable executions through the Lambda client at
// IDEMQ_LAMBDA_ENDPOINT, and keeps no records.
func TestNewDispatcher(t *testing.T) {
	t.Parallel()
	s := read(t, map[string]string{"IDEMQ_MODE": "dispatch", "IDEMQ_NAMESPACE": "n", "IDEMQ_DURABLE_FUNCTION": "summarise:prod",
		"IDEMQ_LAMBDA_ENDPOINT": "http://127.0.0.1:1"})
	w, err := worker.NewDispatcher(context.Background(), s, quiet, testAWS)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Handler == nil || w.Store != nil || w.FrontDoor != nil || w.Consumer != nil || w.Connections != 10 {
		t.Errorf("dispatcher %+v; want a handler, no store, 10 connections", w)
	}
	if _, err := worker.New(context.Background(), s, (&counter{}).fn, quiet); err == nil || !strings.Contains(err.Error(), "worker.New wires worker mode only") {
		t.Errorf("worker.New of dispatch settings: %v", err)
	}
}

// FromEnv wires the mode IDEMQ_MODE names, so one program serves each:
// given the options of every mode, it uses the chosen mode's and refuses
// none of the others'.
func TestFromEnvWiresTheModeChosen(t *testing.T) {
	t.Parallel()
	var c counter
	all := []worker.Option{quiet, testAWS,
		worker.WithHandlerOptions(handler.WithConcurrency(2)),
		worker.WithFrontDoorOptions(frontdoor.WithScope(func(r *http.Request) (string, error) { return r.Header.Get("X-Caller"), nil })),
	}
	for _, tc := range []struct {
		env  map[string]string
		want func(*worker.Worker) bool
	}{
		{map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n"},
			func(w *worker.Worker) bool { return w.Handler != nil && w.FrontDoor == nil && w.Store != nil }},
		{map[string]string{"IDEMQ_MODE": "frontdoor", "IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_FRONTDOOR_QUEUE_URL": "http://127.0.0.1:1/000000000000/requests"},
			func(w *worker.Worker) bool { return w.Handler == nil && w.FrontDoor != nil && w.Store != nil }},
		{map[string]string{"IDEMQ_MODE": "dispatch", "IDEMQ_DURABLE_FUNCTION": "summarise:prod", "IDEMQ_LAMBDA_ENDPOINT": "http://127.0.0.1:1"},
			func(w *worker.Worker) bool { return w.Handler != nil && w.FrontDoor == nil && w.Store == nil }},
	} {
		w, err := worker.FromEnv(context.Background(), lookup(tc.env), c.fn, all...)
		if err != nil {
			t.Errorf("IDEMQ_MODE=%q: %v", tc.env["IDEMQ_MODE"], err)
			continue
		}
		if !tc.want(w) {
			t.Errorf("IDEMQ_MODE=%q: wired %+v", tc.env["IDEMQ_MODE"], w)
		}
		w.Close()
	}
	// fn is worker mode's alone.
	w, err := worker.FromEnv(context.Background(), lookup(map[string]string{"IDEMQ_MODE": "dispatch", "IDEMQ_DURABLE_FUNCTION": "summarise:prod",
		"IDEMQ_LAMBDA_ENDPOINT": "http://127.0.0.1:1"}), nil, quiet, testAWS)
	if err != nil {
		t.Fatalf("a dispatcher without a function of its own: %v", err)
	}
	w.Close()
}
