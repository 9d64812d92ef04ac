package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// SQSServer is fauxqs, the SQS emulator pinned in tools/package.json,
// listening on a free port of 127.0.0.1 (tools/sqs-server.mjs).
type SQSServer struct {
	Endpoint string // http://127.0.0.1:PORT
	cmd      *exec.Cmd
	stdin    io.Closer
	done     chan struct{}
}

const sqsHint = "run `make deps-node` (it installs fauxqs into tools/node_modules); Node.js 20 or later must be on PATH"

// StartSQS starts the SQS server and waits until it listens.
func StartSQS(ctx context.Context, root string) (*SQSServer, error) {
	script := filepath.Join(root, "tools", "sqs-server.mjs")
	if _, err := os.Stat(filepath.Join(root, "tools", "node_modules", "fauxqs", "package.json")); err != nil {
		return nil, fmt.Errorf("pipeline: fauxqs is not installed: %s", sqsHint)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("pipeline: node is not on PATH: %s", sqsHint)
	}
	cmd := exec.Command(node, script)
	cmd.Dir = filepath.Join(root, "tools")
	var stderr logBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe() // the server exits when this closes, and so when we die
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pipeline: start the SQS server: %w (%s)", err, sqsHint)
	}
	s := &SQSServer{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { _ = cmd.Wait(); close(s.done) }()
	select {
	case l, ok := <-line:
		if ok && strings.HasPrefix(l, "http://127.0.0.1:") {
			s.Endpoint = l
			return s, nil
		}
		<-s.done
		return nil, fmt.Errorf("pipeline: the SQS server did not start (%s): %s", sqsHint, strings.TrimSpace(stderr.String()))
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	s.Stop()
	return nil, fmt.Errorf("pipeline: the SQS server did not answer within 30s: %s", strings.TrimSpace(stderr.String()))
}

// Stop stops the server and waits for it to exit.
func (s *SQSServer) Stop() {
	_ = s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}
