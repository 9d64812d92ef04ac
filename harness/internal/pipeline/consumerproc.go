package pipeline

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
)

// ConsumerProc is one consumer process: the reference worker (bootstrap)
// started with a queue URL to consume (envConsumerQueueURL), so it polls
// the queue itself instead of serving Lambda's runtime API.
type ConsumerProc struct {
	Name string
	cmd  *exec.Cmd
	logs *logBuffer

	exited chan struct{}
	err    error // Wait's, once exited is closed

	mu     sync.Mutex
	killed bool // sent SIGKILL
	termed bool // sent SIGTERM
}

// startConsumerProc starts bootstrap with env (KEY=value), in a process
// group of its own, its output kept.
func startConsumerProc(name, bootstrap string, env []string) (*ConsumerProc, error) {
	cmd := exec.Command(bootstrap)
	cmd.Env = env
	logs := &logBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pipeline: start consumer %s: %w", name, err)
	}
	p := &ConsumerProc{Name: name, cmd: cmd, logs: logs, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Kill kills the process at once (kill -9), wherever it is.
func (p *ConsumerProc) Kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	killGroup(p.cmd)
}

// Term asks the process to stop (SIGTERM): it stops receiving, lets its
// running work finish within its grace period, and exits.
func (p *ConsumerProc) Term() {
	p.mu.Lock()
	p.termed = true
	p.mu.Unlock()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
}

// Exited is closed when the process has exited.
func (p *ConsumerProc) Exited() <-chan struct{} { return p.exited }

// Alive reports whether the process has not exited yet.
func (p *ConsumerProc) Alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stopped says what was done to the process: "killed", "terminated" or "".
func (p *ConsumerProc) stopped() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.killed:
		return "killed"
	case p.termed:
		return "terminated"
	}
	return ""
}

// Logs returns what the process printed.
func (p *ConsumerProc) Logs() string { return p.logs.String() }
