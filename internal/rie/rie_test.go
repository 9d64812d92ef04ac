package rie_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/internal/rie"
)

func TestFindMissing(t *testing.T) {
	t.Parallel()
	_, err := rie.Find(filepath.Join(t.TempDir(), "aws-lambda-rie"))
	if err == nil || !strings.Contains(err.Error(), rie.Hint) {
		t.Fatalf("Find of a missing file: %v, want an error with the hint", err)
	}
}

func TestStartNoBinary(t *testing.T) {
	t.Parallel()
	_, err := rie.Start(context.Background(), rie.Config{RIE: filepath.Join(t.TempDir(), "aws-lambda-rie"), Bootstrap: "bootstrap"})
	if err == nil || errors.Is(err, rie.ErrNotListening) {
		t.Fatalf("Start without the emulator: %v, want a start error", err)
	}
}

// TestStartKill starts the installed emulator (it listens before it runs
// the bootstrap, at the first invocation) and kills it.
func TestStartKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the emulator")
	}
	t.Parallel()
	path, err := rie.Find(filepath.Join("..", "..", rie.BinPath))
	if err != nil {
		t.Fatal(err)
	}
	e, err := rie.Start(context.Background(), rie.Config{RIE: path, Bootstrap: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %s, want one on loopback", e.URL())
	}
	e.Stop(10 * time.Second)
	select {
	case <-e.Exited():
	default:
		t.Error("the emulator has not exited after Stop")
	}
}
