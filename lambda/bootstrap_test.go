package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/idemq/idemq/internal/rie"
)

// TestMain removes the worker this test binary built, if it built one.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the worker this test binary built for its tests, once.
var built struct {
	once sync.Once
	dir  string // the temporary directory it is in
	path string
	err  error
}

// workerBootstrap returns the worker built as Lambda runs it, for this
// machine (rie.BuildBootstrap): the one `make test` built for the whole
// run (rie.BootstrapEnv), or else one this test binary builds at its
// first call and every test that runs the worker shares.
func workerBootstrap(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			built.err = err
			return
		}
		if os.Getenv(rie.BootstrapEnv) == "" {
			if built.dir, built.err = os.MkdirTemp("", "idemq-lambda-test-"); built.err != nil {
				return
			}
		}
		built.path, built.err = rie.Bootstrap(context.Background(), root, built.dir)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}
