package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/sqstest"
)

// The worker binary in consumer mode, against the SQS server and DynamoDB
// Local: two processes on one queue and table run each request once
// however often it is sent; SIGTERM during a call leaves its message in
// the queue, and the next process runs it.
func TestConsumerMode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the worker and runs it against the SQS server and DynamoDB Local")
	}
	t.Parallel()
	sqsClient := sqstest.Client(t)
	dynamotest.Client(t) // DynamoDB Local must answer: fails (not skips) when it does not
	ddb := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(os.Getenv(dynamotest.EndpointEnv)),
		Credentials:  credentials.NewStaticCredentialsProvider("idemqconsumer", "idemqconsumer", ""),
	})
	bin := workerBootstrap(t)
	env := func(table, queueURL string, p *holdingProvider, extra ...string) []string {
		return append([]string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true",
			"AWS_ACCESS_KEY_ID=idemqconsumer", "AWS_SECRET_ACCESS_KEY=idemqconsumer",
			"IDEMQ_TABLE=" + table, "IDEMQ_DYNAMODB_ENDPOINT=" + os.Getenv(dynamotest.EndpointEnv),
			"IDEMQ_NAMESPACE=consumer-worker", "IDEMQ_PROVIDER_URL=" + p.URL + "/v1", "IDEMQ_RECORD_EXPIRY=120h",
			"IDEMQ_SQS_ENDPOINT=" + sqstest.Endpoint(t), "IDEMQ_CONSUMER_QUEUE_URL=" + queueURL,
		}, extra...)
	}
	sendBody := func(t *testing.T, url, key, prompt string) {
		t.Helper()
		b := fmt.Sprintf(`{"idempotency_key":%q,"model":"m1","prompt":%q}`, key, prompt)
		if _, err := sqsClient.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(b)}); err != nil {
			t.Fatalf("send: %v", err)
		}
	}

	t.Run("duplicates", func(t *testing.T) {
		t.Parallel()
		table := dynamotest.NewTable(t, ddb)
		url := sqstest.NewQueue(t, sqsClient, sqstest.Queue{})
		p := newHoldingProvider(t)
		const keys = 8
		for range 3 {
			for k := range keys {
				sendBody(t, url, fmt.Sprintf("req-%d", k), fmt.Sprintf("prompt %d", k))
			}
		}
		health := freeAddr(t)
		// A short lease kept by a heartbeat, as docs/worker.md advises: a
		// copy that finds its key in progress on the other process is
		// given back until the lease ends, seconds, not MaxRunTime.
		claim := []string{"IDEMQ_LEASE=6s", "IDEMQ_HEARTBEAT=2s"}
		w1 := startWorker(t, bin, env(table, url, p, append(claim, "IDEMQ_HEALTH_ADDR="+health)...))
		w2 := startWorker(t, bin, env(table, url, p, claim...))
		waitFor(t, "every request run and the queue empty", func() bool {
			for k := range keys {
				if p.count(fmt.Sprintf("prompt %d", k)) == 0 {
					return false
				}
			}
			v, f := sqstest.Counts(t, sqsClient, url)
			return v == 0 && f == 0
		})
		for k := range keys {
			if n := p.count(fmt.Sprintf("prompt %d", k)); n != 1 {
				t.Errorf("provider calls for req-%d: %d; want 1", k, n)
			}
		}
		resp, err := http.Get("http://" + health + "/healthz")
		if err != nil {
			t.Fatalf("health: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != "ok" {
			t.Errorf("health: %d %q; want 200 ok", resp.StatusCode, b)
		}
		for _, w := range []*workerProcess{w1, w2} {
			if code := w.terminate(t); code != 0 {
				t.Errorf("exit status %d after SIGTERM; want 0\n%s", code, w.out.String())
			}
		}
	})

	t.Run("sigterm", func(t *testing.T) {
		t.Parallel()
		table := dynamotest.NewTable(t, ddb)
		url := sqstest.NewQueue(t, sqsClient, sqstest.Queue{Visibility: 2 * time.Second})
		p := newHoldingProvider(t)
		sendBody(t, url, "req-long", "hold: a long generation")
		w := startWorker(t, bin, env(table, url, p, "IDEMQ_CONSUMER_GRACE_PERIOD=1s"))
		waitFor(t, "the call to start", func() bool { return p.count("hold: a long generation") == 1 })
		if code := w.terminate(t); code != 0 {
			t.Fatalf("exit status %d after SIGTERM; want 0\n%s", code, w.out.String())
		}
		if out := w.out.String(); !strings.Contains(out, "grace period over") {
			t.Errorf("no log of the grace period ending:\n%s", out)
		}
		if n := sqstest.Held(t, sqsClient, url); n != 1 {
			t.Fatalf("queue holds %d messages after SIGTERM; want the unfinished message", n)
		}
		// The next process finishes it.
		p.release()
		w2 := startWorker(t, bin, env(table, url, p))
		waitFor(t, "the retry and the queue empty", func() bool {
			v, f := sqstest.Counts(t, sqsClient, url)
			return p.count("hold: a long generation") == 2 && v == 0 && f == 0
		})
		if n := p.count("hold: a long generation"); n != 2 {
			t.Errorf("provider calls: %d; want 2 (the cancelled one, then the retry)", n)
		}
		w2.terminate(t)
	})

	t.Run("kill -9", func(t *testing.T) {
		t.Parallel()
		table := dynamotest.NewTable(t, ddb)
		url := sqstest.NewQueue(t, sqsClient, sqstest.Queue{Visibility: 2 * time.Second})
		testKill(t, bin, env, sqsClient, table, url, func() { sendBody(t, url, "req-killed", "hold: killed mid-call") })
	})
}

// kill -9 during a call: nothing is deleted; the message comes back, the
// dead worker's claim holds the key until its lease passes, and the next
// process then takes it over and runs it.
func testKill(t *testing.T, bin string, env func(table, queueURL string, p *holdingProvider, extra ...string) []string,
	sqsClient *sqs.Client, table, url string, send func()) {
	p := newHoldingProvider(t)
	send()
	claim := []string{"IDEMQ_LEASE=4s", "IDEMQ_HEARTBEAT=1s"}
	w := startWorker(t, bin, env(table, url, p, claim...))
	waitFor(t, "the call to start", func() bool { return p.count("hold: killed mid-call") == 1 })
	if err := w.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-w.done
	if n := sqstest.Held(t, sqsClient, url); n != 1 {
		t.Fatalf("queue holds %d messages after kill -9; want the unfinished message", n)
	}
	p.release()
	w2 := startWorker(t, bin, env(table, url, p, claim...))
	waitFor(t, "the take-over and the queue empty", func() bool {
		v, f := sqstest.Counts(t, sqsClient, url)
		return p.count("hold: killed mid-call") == 2 && v == 0 && f == 0
	})
	if n := p.count("hold: killed mid-call"); n != 2 {
		t.Errorf("provider calls: %d; want 2 (the killed one, then the take-over)", n)
	}
	w2.terminate(t)
}

// holdingProvider is the fake provider, except that a prompt starting
// with "hold" is held until its request ends or release is called.
type holdingProvider struct {
	*httptest.Server
	f        *fakeProvider
	mu       sync.Mutex
	counts   map[string]int
	released chan struct{}
	once     sync.Once
}

func newHoldingProvider(t *testing.T) *holdingProvider {
	p := &holdingProvider{f: newFakeProvider(t), counts: map[string]int{}, released: make(chan struct{})}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var prompt string
		if i := bytes.LastIndex(b, []byte(`"content":"`)); i >= 0 {
			prompt = string(b[i+len(`"content":"`):])
			prompt = prompt[:strings.IndexByte(prompt, '"')]
		}
		p.mu.Lock()
		p.counts[prompt]++
		p.mu.Unlock()
		if strings.HasPrefix(prompt, "hold") {
			select {
			case <-r.Context().Done():
				return
			case <-p.released:
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		p.f.serve(w, r)
	}))
	t.Cleanup(p.Close)
	t.Cleanup(p.release) // runs first: no request stays held
	return p
}

func (p *holdingProvider) release() { p.once.Do(func() { close(p.released) }) }

func (p *holdingProvider) count(prompt string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[prompt]
}

type workerProcess struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{}
}

func startWorker(t *testing.T, bin string, env []string) *workerProcess {
	t.Helper()
	w := &workerProcess{cmd: exec.Command(bin), out: &lockedBuffer{}, done: make(chan struct{})}
	w.cmd.Env, w.cmd.Stdout, w.cmd.Stderr = env, w.out, w.out
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = w.cmd.Wait(); close(w.done) }()
	t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
		if t.Failed() {
			t.Logf("worker output:\n%s", w.out.String())
		}
	})
	return w
}

// terminate sends SIGTERM and returns the exit status once the process
// exits (it fails the test if that takes a minute).
func (w *workerProcess) terminate(t *testing.T) int {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	case <-time.After(time.Minute):
		t.Fatalf("worker still running a minute after SIGTERM\n%s", w.out.String())
	}
	return w.cmd.ProcessState.ExitCode()
}

// waitFor waits, up to a generous bound, until cond holds. It bounds a
// wait; it times nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
