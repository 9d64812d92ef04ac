// Package netfault is a loopback TCP proxy for tests that cuts a
// connection at a chosen moment: after the server has read a request and
// answered it, before the client reads the answer. It is how the store
// tests drop a connection mid-claim against a real server.
//
//	p := netfault.New(t, "127.0.0.1:5432")
//	// connect the client to p.Addr()
//	p.DropNextReply() // the next answer from the server is lost
package netfault

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy forwards connections from Addr to a target.
type Proxy struct {
	ln      net.Listener
	target  string
	drop    atomic.Bool
	dropped atomic.Int32
	mu      sync.Mutex
	conns   []net.Conn
	wg      sync.WaitGroup
}

// New starts a proxy to target on a free loopback port, closed when the
// test ends.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("netfault: listen: %v", err)
	}
	p := &Proxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// DropNextReply arms the proxy: the next bytes a server sends on any
// connection are discarded and that connection is closed both ways.
func (p *Proxy) DropNextReply() { p.drop.Store(true) }

// Dropped is how many connections the proxy has cut.
func (p *Proxy) Dropped() int { return int(p.dropped.Load()) }

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			_, _ = io.Copy(s, c)
			_ = s.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.replies(c, s)
		}()
	}
}

// replies copies the server's answers to the client until the proxy is
// armed, then cuts the connection.
func (p *Proxy) replies(c, s net.Conn) {
	defer c.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if p.drop.CompareAndSwap(true, false) {
				p.dropped.Add(1)
				_ = s.Close()
				return
			}
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// ClosedAddr returns a loopback host:port that nothing listens on: a
// server that is down.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("netfault: listen: %v", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
