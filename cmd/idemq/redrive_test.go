package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/internal/sqstest"
)

// moveServer is an SQS endpoint for redrive's tests: moto (scripts/
// with-sqs.sh) serves every request but the message move tasks, which
// moto 5.2.1 does not implement (StartMessageMoveTask and
// ListMessageMoveTasks are not in its SQS backend). moveServer serves
// those two in SQS's JSON protocol, moving the messages between moto's
// queues itself: one message each time the task is listed, so a test
// sees a RUNNING task make progress, then COMPLETED (or FAILED, with
// failure set).
type moveServer struct {
	moto    *sqs.Client
	proxy   *httputil.ReverseProxy
	failure string // a FailureReason: the task fails once the queue is empty

	mu     sync.Mutex
	tasks  []*moveTask // most recent first
	starts []startRequest
}

type startRequest struct {
	SourceArn                    string
	DestinationArn               string `json:",omitempty"`
	MaxNumberOfMessagesPerSecond *int32 `json:",omitempty"`
}

type moveTask struct {
	handle, status, source, dest string
	sourceURL, destURL           string
	toMove, moved                int64
	perSecond                    *int32
}

func newMoveServer(t *testing.T) (*moveServer, string) {
	t.Helper()
	endpoint := sqstest.Endpoint(t)
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	m := &moveServer{moto: sqstest.Client(t), proxy: httputil.NewSingleHostReverseProxy(target)}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return m, srv.URL
}

func (m *moveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Header.Get("X-Amz-Target") {
	case "AmazonSQS.StartMessageMoveTask":
		var in startRequest
		if !decode(w, r, &in) {
			return
		}
		out, err := m.start(r.Context(), in)
		reply(w, out, err)
	case "AmazonSQS.ListMessageMoveTasks":
		var in struct{ SourceArn string }
		if !decode(w, r, &in) {
			return
		}
		out, err := m.list(r.Context(), in.SourceArn)
		reply(w, out, err)
	default:
		m.proxy.ServeHTTP(w, r)
	}
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		reply(w, nil, err)
		return false
	}
	return true
}

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		v = map[string]string{"__type": "com.amazonaws.sqs#InvalidParameterValueException", "message": err.Error()}
	}
	_ = json.NewEncoder(w).Encode(v)
}

// urlOf is the URL of the queue an ARN names, from moto.
func (m *moveServer) urlOf(ctx context.Context, arn string) (string, error) {
	parts := strings.Split(arn, ":")
	out, err := m.moto.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(parts[len(parts)-1])})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.QueueUrl), nil
}

// start makes a RUNNING task; without a destination, the queue whose
// redrive policy names the source as its dead-letter queue.
func (m *moveServer) start(ctx context.Context, in startRequest) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.starts = append(m.starts, in)
	task := &moveTask{handle: fmt.Sprintf("task-%d", len(m.starts)), status: "RUNNING", source: in.SourceArn, dest: in.DestinationArn, perSecond: in.MaxNumberOfMessagesPerSecond}
	var err error
	if task.sourceURL, err = m.urlOf(ctx, in.SourceArn); err != nil {
		return nil, err
	}
	if task.dest == "" {
		queues, err := m.moto.ListQueues(ctx, &sqs.ListQueuesInput{})
		if err != nil {
			return nil, err
		}
		for _, q := range queues.QueueUrls {
			attrs, err := m.moto.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q), AttributeNames: []types.QueueAttributeName{"All"}})
			if err != nil {
				continue // a queue another test deleted meanwhile
			}
			var policy struct{ DeadLetterTargetArn string }
			_ = json.Unmarshal([]byte(attrs.Attributes["RedrivePolicy"]), &policy)
			if policy.DeadLetterTargetArn == in.SourceArn {
				task.dest, task.destURL = attrs.Attributes["QueueArn"], q
			}
		}
		if task.dest == "" {
			return nil, fmt.Errorf("no queue has %s as its dead-letter queue", in.SourceArn)
		}
	} else if task.destURL, err = m.urlOf(ctx, task.dest); err != nil {
		return nil, err
	}
	attrs, err := m.moto.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(task.sourceURL), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		return nil, err
	}
	fmt.Sscan(attrs.Attributes["ApproximateNumberOfMessages"], &task.toMove)
	m.tasks = slices.Insert(m.tasks, 0, task)
	return map[string]string{"TaskHandle": task.handle}, nil
}

// list moves one message of each RUNNING task of the source, then lists
// the source's tasks, the handle only of those still RUNNING, as SQS does.
func (m *moveServer) list(ctx context.Context, source string) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var results []map[string]any
	for _, task := range m.tasks {
		if task.source != source {
			continue
		}
		if task.status == "RUNNING" {
			if err := m.step(ctx, task); err != nil {
				return nil, err
			}
		}
		r := map[string]any{"Status": task.status, "SourceArn": task.source, "DestinationArn": task.dest,
			"ApproximateNumberOfMessagesMoved": task.moved, "ApproximateNumberOfMessagesToMove": task.toMove, "StartedTimestamp": 1}
		if task.status == "RUNNING" {
			r["TaskHandle"] = task.handle
		}
		if task.status == "FAILED" {
			r["FailureReason"] = m.failure
		}
		results = append(results, r)
	}
	return map[string]any{"Results": results}, nil
}

// step moves one message of task, or ends it when the source is empty.
func (m *moveServer) step(ctx context.Context, task *moveTask) error {
	out, err := m.moto.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(task.sourceURL), MaxNumberOfMessages: 1})
	if err != nil {
		return err
	}
	if len(out.Messages) == 0 {
		task.status = "COMPLETED"
		if m.failure != "" {
			task.status = "FAILED"
		}
		return nil
	}
	msg := out.Messages[0]
	if _, err := m.moto.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(task.destURL), MessageBody: msg.Body}); err != nil {
		return err
	}
	if _, err := m.moto.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(task.sourceURL), ReceiptHandle: msg.ReceiptHandle}); err != nil {
		return err
	}
	task.moved++
	return nil
}

// queues is a source queue whose redrive policy names a dead-letter
// queue holding three messages, on moto.
type queues struct {
	client          *sqs.Client
	source, dlq     string // URLs
	sourceARN, dARN string
}

func newQueues(t *testing.T) queues {
	t.Helper()
	client := sqstest.Client(t)
	q := queues{client: client, source: sqstest.NewQueue(t, client, sqstest.Queue{}), dlq: sqstest.NewQueue(t, client, sqstest.Queue{})}
	q.sourceARN, q.dARN = queueARN(t, client, q.source), queueARN(t, client, q.dlq)
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"5"}`, q.dARN)
	if _, err := client.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q.source), Attributes: map[string]string{"RedrivePolicy": policy}}); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"idempotency_key":"k1"}`, `{"idempotency_key":"k2"}`, `{"idempotency_key":"k3"}`} {
		if _, err := client.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(q.dlq), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	return q
}

func queueARN(t *testing.T, client *sqs.Client, url string) string {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["QueueArn"]
}

// bodies receives every message of the queue and returns the bodies,
// sorted.
func bodies(t *testing.T, client *sqs.Client, url string) []string {
	t.Helper()
	var out []string
	for {
		r, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 60})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Messages) == 0 {
			slices.Sort(out)
			return out
		}
		for _, m := range r.Messages {
			out = append(out, aws.ToString(m.Body))
		}
	}
}

// redriveEnv is the command's environment for the SQS endpoint.
func redriveEnv(endpoint string) *bundle {
	return &bundle{env: map[string]string{
		"IDEMQ_SQS_ENDPOINT": endpoint, "AWS_REGION": sqstest.Region, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
	}}
}

var allThree = []string{`{"idempotency_key":"k1"}`, `{"idempotency_key":"k2"}`, `{"idempotency_key":"k3"}`}

// redrive moves the dead-letter queue's messages back to their source
// queue, printing the task's progress until it completes.
func TestRedrive(t *testing.T) {
	t.Parallel()
	m, endpoint := newMoveServer(t)
	q := newQueues(t)
	b := redriveEnv(endpoint)
	r := b.run(t, strings.NewReader("y\n"), "redrive", "--dlq", q.dlq, "--every", "1ms")
	if r.code != exitOK {
		t.Fatalf("redrive: exit %d", r.code)
	}
	for _, want := range []string{"3 message(s) in " + q.dARN, "[y/N]", "RUNNING: 1 of 3 moved", "RUNNING: 3 of 3 moved", "COMPLETED: 3 of 3 moved", "redrive done"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("redrive does not say %q", want)
		}
	}
	if got := bodies(t, q.client, q.source); !slices.Equal(got, allThree) {
		t.Errorf("the source queue holds %q, want %q", got, allThree)
	}
	if got := bodies(t, q.client, q.dlq); len(got) != 0 {
		t.Errorf("the dead-letter queue still holds %q", got)
	}
	if want := []startRequest{{SourceArn: q.dARN}}; !slices.EqualFunc(m.starts, want, sameStart) {
		t.Errorf("StartMessageMoveTask requests %+v, want %+v (no destination: each message's source)", m.starts, want)
	}
}

func sameStart(a, b startRequest) bool {
	return a.SourceArn == b.SourceArn && a.DestinationArn == b.DestinationArn && aws.ToInt32(a.MaxNumberOfMessagesPerSecond) == aws.ToInt32(b.MaxNumberOfMessagesPerSecond)
}

// --to and --max-per-second reach the task; the queues may be named by
// their ARNs (the stack's outputs).
func TestRedriveTo(t *testing.T) {
	t.Parallel()
	m, endpoint := newMoveServer(t)
	q := newQueues(t)
	other := sqstest.NewQueue(t, q.client, sqstest.Queue{})
	b := redriveEnv(endpoint)
	r := b.run(t, nil, "redrive", "--dlq", q.dARN, "--to", queueARN(t, q.client, other), "--max-per-second", "7", "--every", "1ms", "--yes", "--json")
	if r.code != exitOK {
		t.Fatalf("redrive --to: exit %d", r.code)
	}
	var last progress
	for line := range strings.Lines(r.stdout) {
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
	}
	if last.Status != "COMPLETED" || last.Moved != 3 {
		t.Errorf("last progress %+v, want COMPLETED with 3 moved", last)
	}
	if got := bodies(t, q.client, other); !slices.Equal(got, allThree) {
		t.Errorf("the --to queue holds %q, want %q", got, allThree)
	}
	if want := []startRequest{{SourceArn: q.dARN, DestinationArn: queueARN(t, q.client, other), MaxNumberOfMessagesPerSecond: aws.Int32(7)}}; !slices.EqualFunc(m.starts, want, sameStart) {
		t.Errorf("StartMessageMoveTask requests %+v, want %+v", m.starts, want)
	}
}

// A redrive answered no starts nothing; a task that fails is a failure.
func TestRedriveNoAndFailed(t *testing.T) {
	t.Parallel()
	m, endpoint := newMoveServer(t)
	q := newQueues(t)
	b := redriveEnv(endpoint)
	if r := b.run(t, strings.NewReader("n\n"), "redrive", "--dlq", q.dlq, "--every", "1ms"); r.code != exitFailed || !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("redrive answered n: exit %d, want %d", r.code, exitFailed)
	}
	if len(m.starts) != 0 {
		t.Errorf("redrive answered n started %d task(s)", len(m.starts))
	}
	if got := bodies(t, q.client, q.dlq); len(got) != 3 {
		t.Errorf("after a redrive answered n the dead-letter queue holds %d messages, want 3", len(got))
	}
	m.failure = "AWS.SimpleQueueService.NonExistentQueue"
	r := b.run(t, nil, "redrive", "--dlq", q.dlq, "--every", "1ms", "--yes")
	if r.code != exitFailed || !strings.Contains(r.stderr, "failed: AWS.SimpleQueueService.NonExistentQueue") {
		t.Errorf("a failed task: exit %d, want %d with its reason", r.code, exitFailed)
	}
	if r := b.run(t, nil, "redrive", "--yes"); r.code != exitUsage {
		t.Errorf("redrive without --dlq: exit %d, want %d", r.code, exitUsage)
	}
}
