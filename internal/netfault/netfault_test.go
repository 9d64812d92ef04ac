package netfault_test

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/internal/netfault"
)

// echo is a line server that answers each line with "ok LINE" and keeps
// the lines it read.
type echo struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
}

func startEcho(t *testing.T) *echo {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echo{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					e.mu.Lock()
					e.seen = append(e.seen, strings.TrimSpace(line))
					e.mu.Unlock()
					if _, err := io.WriteString(c, "ok "+line); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return e
}

func (e *echo) lines() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// ask sends line on a new connection through addr and returns the answer,
// or the error reading it.
func ask(t *testing.T, addr, line string) (string, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

// The filter sees each request and decides: passed requests are answered,
// refused ones never reach the server, lost answers were acted on by the
// server but never reach the client; each cut counts in Dropped.
func TestFilter(t *testing.T) {
	e := startEcho(t)
	p, err := netfault.Start(e.ln.Addr().String(), func(req []byte) netfault.Verdict {
		switch {
		case strings.HasPrefix(string(req), "refuse"):
			return netfault.Refuse
		case strings.HasPrefix(string(req), "lose"):
			return netfault.LoseAnswer
		}
		return netfault.Pass
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	if got, err := ask(t, p.Addr(), "pass"); err != nil || got != "ok pass\n" {
		t.Fatalf("passed request: %q, %v", got, err)
	}
	if got, err := ask(t, p.Addr(), "refuse"); err == nil {
		t.Fatalf("refused request answered %q", got)
	}
	if got, err := ask(t, p.Addr(), "lose"); err == nil {
		t.Fatalf("lost answer arrived: %q", got)
	}
	// The server acts on what it reads before the proxy cuts: wait for
	// the lost request to be seen.
	deadline := time.Now().Add(5 * time.Second)
	for len(e.lines()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := strings.Join(e.lines(), ","); got != "pass,lose" {
		t.Fatalf("the server read %q, want pass,lose (refuse never reaching it)", got)
	}
	if p.Dropped() != 2 {
		t.Fatalf("Dropped() = %d, want 2", p.Dropped())
	}
}

// DropNextReply loses the next answer on any connection, once.
func TestDropNextReply(t *testing.T) {
	e := startEcho(t)
	p := netfault.New(t, e.ln.Addr().String())
	p.DropNextReply()
	if got, err := ask(t, p.Addr(), "first"); err == nil {
		t.Fatalf("dropped answer arrived: %q", got)
	}
	if got, err := ask(t, p.Addr(), "second"); err != nil || got != "ok second\n" {
		t.Fatalf("after the drop: %q, %v", got, err)
	}
	if p.Dropped() != 1 {
		t.Fatalf("Dropped() = %d, want 1", p.Dropped())
	}
}
