// Package netfault is a loopback TCP proxy that cuts connections at chosen
// moments: before a request reaches the server (refused), or after the
// server has read a request and answered it, before the client reads the
// answer (lost). The store tests drop a connection mid-claim against a
// real server with it; the real pipeline puts it between the workers and
// PostgreSQL or Redis.
//
//	p := netfault.New(t, "127.0.0.1:5432")
//	// connect the client to p.Addr()
//	p.DropNextReply() // the next answer from the server is lost
//
// A Filter decides per request: what the client writes in one go (one
// read of the proxy) is taken for one request, as it is for pgx and
// go-redis, which write a query or a command whole and wait for the
// answer.
package netfault

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Verdict is what becomes of a request.
type Verdict int

// The verdicts.
const (
	// Pass forwards the request and its answer.
	Pass Verdict = iota
	// Refuse cuts the connection without forwarding the request: the
	// server never sees it.
	Refuse
	// LoseAnswer forwards the request, then cuts the connection when the
	// answer comes: the server acted on it, the client never learns how.
	LoseAnswer
)

// Filter is called with each request a client sends, before it is
// forwarded, from the connection's own goroutine; it may sleep (latency).
// It must not keep request.
type Filter func(request []byte) Verdict

// Proxy forwards connections from Addr to a target.
type Proxy struct {
	ln      net.Listener
	target  string
	filter  Filter
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
	p, err := Start(target, nil)
	if err != nil {
		t.Fatalf("netfault: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// Start starts a proxy to target on a free loopback port, with filter
// (nil passes every request). Close stops it.
func Start(target string, filter Filter) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, filter: filter}
	p.wg.Add(1)
	go p.accept()
	return p, nil
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
		var loseNext atomic.Bool
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			p.requests(c, s, &loseNext)
		}()
		go func() {
			defer p.wg.Done()
			p.replies(c, s, &loseNext)
		}()
	}
}

// requests copies the client's requests to the server, through the
// filter.
func (p *Proxy) requests(c, s net.Conn, loseNext *atomic.Bool) {
	defer s.Close()
	pump(s, c, func(req []byte) bool {
		v := Pass
		if p.filter != nil {
			v = p.filter(req)
		}
		switch v {
		case Refuse:
			p.dropped.Add(1)
			_ = c.Close()
			return false
		case LoseAnswer:
			loseNext.Store(true)
		}
		return true
	})
}

// replies copies the server's answers to the client until an answer is to
// be lost, then cuts the connection.
func (p *Proxy) replies(c, s net.Conn, loseNext *atomic.Bool) {
	defer c.Close()
	pump(c, s, func([]byte) bool {
		if loseNext.Load() || p.drop.CompareAndSwap(true, false) {
			p.dropped.Add(1)
			_ = s.Close()
			return false
		}
		return true
	})
}

// pump copies what src sends to dst, one read at a time, as long as pass
// lets each through, and until either side fails.
func pump(dst, src net.Conn, pass func([]byte) bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !pass(buf[:n]) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Close stops the proxy and cuts every connection.
func (p *Proxy) Close() {
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
