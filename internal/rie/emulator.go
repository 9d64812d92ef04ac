package rie

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"time"
)

// ErrNotListening is the error Start returns, wrapped with the reason,
// when the emulator started but exited or did not listen in time.
var ErrNotListening = errors.New("rie: the emulator did not listen")

// Config says how Start runs the emulator.
type Config struct {
	RIE       string // path of aws-lambda-rie
	Bootstrap string // path of the bootstrap the emulator runs
	// Env is the whole environment of the emulator and the bootstrap,
	// KEY=value. Defaults to none.
	Env []string
	// Dir is the emulator's working directory. Defaults to the current
	// one.
	Dir string
	// LogLevel is passed as --log-level when set. Defaults to the
	// emulator's own (or LOG_LEVEL in Env).
	LogLevel string
	// Output receives what the emulator and the bootstrap print, from two
	// pipes at once. Defaults to discarding it.
	Output io.Writer
	// Wait is how long Start waits for the emulator to listen. Defaults to
	// 30 seconds.
	Wait time.Duration
	// Prepare, when set, is called on the command just before it starts;
	// it may replace the process attributes (by default a process group of
	// its own, on Unix).
	Prepare func(*exec.Cmd)
	// Kill stops the emulator and what it started. Defaults to SIGKILL to
	// its process group (to its process, off Unix).
	Kill func(*exec.Cmd)
}

// Emulator is a running aws-lambda-rie.
type Emulator struct {
	// Addr is the loopback address (host:port) it listens at.
	Addr string

	cmd    *exec.Cmd
	exited chan struct{}
	kill   func(*exec.Cmd)
}

// Start runs the emulator with the bootstrap on two loopback ports free a
// moment ago and waits until it listens. When it exits or does not listen
// in time, it is killed and the error is ErrNotListening.
func Start(ctx context.Context, c Config) (*Emulator, error) {
	addr, err := freeLoopback()
	if err != nil {
		return nil, err
	}
	apiAddr, err := freeLoopback()
	if err != nil {
		return nil, err
	}
	args := []string{"--runtime-interface-emulator-address", addr, "--runtime-api-address", apiAddr}
	if c.LogLevel != "" {
		args = append(args, "--log-level", c.LogLevel)
	}
	cmd := exec.Command(c.RIE, append(args, c.Bootstrap)...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if c.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdout, cmd.Stderr = c.Output, c.Output
	ownGroup(cmd)
	if c.Prepare != nil {
		c.Prepare(cmd)
	}
	e := &Emulator{Addr: addr, cmd: cmd, exited: make(chan struct{}), kill: c.Kill}
	if e.kill == nil {
		e.kill = killGroup
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("rie: start %s: %w", c.RIE, err)
	}
	go func() { _ = cmd.Wait(); close(e.exited) }()
	wait := c.Wait
	if wait == 0 {
		wait = 30 * time.Second
	}
	if err := waitListening(ctx, addr, wait, e.exited); err != nil {
		e.Kill()
		return nil, fmt.Errorf("%w: %w", ErrNotListening, err)
	}
	return e, nil
}

// URL is the emulator's invocation URL: POST an event to it.
func (e *Emulator) URL() string {
	return "http://" + e.Addr + "/2015-03-31/functions/function/invocations"
}

// Exited is closed when the emulator has exited.
func (e *Emulator) Exited() <-chan struct{} { return e.exited }

// Kill stops the emulator and what it started with Config.Kill, and waits
// until it has exited.
func (e *Emulator) Kill() {
	e.kill(e.cmd)
	<-e.exited
}

// Stop asks the emulator and what it started to stop (SIGTERM to its
// process group), kills them if they have not exited after grace, and
// waits until the emulator has exited.
func (e *Emulator) Stop(grace time.Duration) {
	terminateGroup(e.cmd)
	select {
	case <-e.exited:
	case <-time.After(grace):
		e.Kill()
	}
}

// waitListening waits until something accepts connections at addr.
func waitListening(ctx context.Context, addr string, wait time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("it exited during start-up")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("nothing listens at %s after %s", addr, wait)
}

// freeLoopback returns a loopback address whose port was free a moment
// ago.
func freeLoopback() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
