package deploylocal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"time"
)

// MotoHint says how to get moto_server.
const MotoHint = "moto_server (moto's server mode, with its CloudFormation) must be on PATH: pip install 'moto[server]'"

// Moto is a moto_server on a loopback port.
type Moto struct {
	// Endpoint is its URL, http://localhost:PORT.
	Endpoint string

	cmd    *exec.Cmd
	exited chan struct{}
}

// StartMoto starts moto_server on a free loopback port, writing its log to
// out, and waits until it answers.
func StartMoto(ctx context.Context, out io.Writer) (*Moto, error) {
	path, err := exec.LookPath("moto_server")
	if err != nil {
		return nil, fmt.Errorf("deploylocal: %w; %s", err, MotoHint)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(path, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("deploylocal: start moto_server: %w", err)
	}
	m := &Moto{Endpoint: "http://localhost:" + strconv.Itoa(port), cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(m.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			return m, nil
		}
		select {
		case <-m.exited:
			return nil, errors.New("deploylocal: moto_server exited during start-up")
		case <-ctx.Done():
			m.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.Close()
			return nil, fmt.Errorf("deploylocal: moto_server does not answer at %s", m.Endpoint)
		}
	}
}

// Close stops moto_server and waits until it has exited.
func (m *Moto) Close() {
	_ = m.cmd.Process.Kill()
	<-m.exited
}

// orphanedPolls waits out the long polls a drained event source mapping
// cancelled: the client gave up on them, but moto's server goes on
// waiting, up to the poll's whole second, and would take a message sent
// meanwhile for a receive nobody reads, hiding it for the visibility
// timeout (12 minutes).
func orphanedPolls() { time.Sleep(2 * time.Second) }
