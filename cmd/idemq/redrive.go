package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// sqsAPI is the part of the SQS client redrive calls; *sqs.Client
// satisfies it.
type sqsAPI interface {
	GetQueueUrl(ctx context.Context, in *sqs.GetQueueUrlInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
	StartMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	ListMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
}

var _ sqsAPI = (*sqs.Client)(nil)

// runRedrive moves a dead-letter queue's messages back with one SQS
// message move task (StartMessageMoveTask), then follows it
// (ListMessageMoveTasks) until it ends. Redriven messages get new message
// ids; the worker's keys come from their bodies, so a message whose work
// was done replays its result.
func runRedrive(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int {
	dlq := fs.String("dlq", "", "the dead-letter queue, its URL or ARN (required)")
	to := fs.String("to", "", "the queue to move the messages to, its URL or ARN (default: each message's source queue)")
	perSecond := fs.Int("max-per-second", 0, "the most messages moved a second, 1 to 500 (default: as fast as SQS moves them, up to 500)")
	every := fs.Duration("every", 5*time.Second, "how often to read the task's progress")
	if _, ok := e.parse(fs, args, 0); !ok {
		return exitUsage
	}
	switch {
	case *dlq == "":
		fmt.Fprintf(e.stderr, "%s: --dlq is required: the dead-letter queue's URL or ARN\n", fs.Name())
		return exitUsage
	case *perSecond < 0 || *perSecond > 500:
		fmt.Fprintf(e.stderr, "%s: --max-per-second %d: want 1 to 500\n", fs.Name(), *perSecond)
		return exitUsage
	case *every <= 0:
		fmt.Fprintf(e.stderr, "%s: --every %s: want a positive duration\n", fs.Name(), *every)
		return exitUsage
	}
	cfg, err := awsConfig(ctx, e.getenv, e.stderr)
	if err != nil {
		return e.fail(fs.Name(), err)
	}
	client := sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		if e.sqsEndpoint != "" {
			o.BaseEndpoint = aws.String(e.sqsEndpoint)
		}
	})
	return e.redrive(ctx, fs.Name(), client, *dlq, *to, *perSecond, *every)
}

// redrive is runRedrive once its flags are read.
func (e *env) redrive(ctx context.Context, name string, client sqsAPI, dlq, to string, perSecond int, every time.Duration) int {
	source, err := dlqOf(ctx, client, dlq)
	if err != nil {
		return e.fail(name, fmt.Errorf("--dlq %s: %w", dlq, err))
	}
	in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(source.arn)}
	dest := "the queue each message came from"
	if to != "" {
		arn, err := arnOf(ctx, client, to)
		if err != nil {
			return e.fail(name, fmt.Errorf("--to %s: %w (pass its ARN, which needs no read of the queue)", to, err))
		}
		in.DestinationArn, dest = aws.String(arn), arn
	}
	rate := "as fast as SQS moves them"
	if perSecond > 0 {
		in.MaxNumberOfMessagesPerSecond = aws.Int32(int32(perSecond))
		rate = fmt.Sprintf("at most %d a second", perSecond)
	}
	out := e.stdout
	if e.json {
		out = e.stderr
	}
	count := fmt.Sprintf("%d message(s)", source.messages)
	if source.messages < 0 {
		count = "messages (how many is unknown: pass the queue's URL to read its count)"
	}
	fmt.Fprintf(out, "redrive: %s in %s (about; SQS counts are approximate)\n", count, escape(source.arn))
	fmt.Fprintf(out, "Each goes to %s, %s, with a new message id; a key whose work was done replays its result.\n", escape(dest), rate)
	if !confirm(&e.settings, e.stdin, out, "Start the move?") {
		fmt.Fprintln(out, "nothing changed")
		return exitFailed
	}
	started, err := client.StartMessageMoveTask(ctx, in)
	if err != nil {
		return e.fail(name, fmt.Errorf("StartMessageMoveTask: %w", err))
	}
	handle := aws.ToString(started.TaskHandle)
	fmt.Fprintf(out, "started message move task %s\n", escape(handle))
	last := ""
	for {
		task, err := findTask(ctx, client, source.arn, handle)
		if err != nil {
			return e.fail(name, fmt.Errorf("ListMessageMoveTasks: %w", err))
		}
		line := fmt.Sprintf("%s: %d of %d moved", aws.ToString(task.Status), task.ApproximateNumberOfMessagesMoved, aws.ToInt64(task.ApproximateNumberOfMessagesToMove))
		if line != last {
			if e.json {
				writeJSON(e.stdout, progress{Task: handle, Status: aws.ToString(task.Status), Moved: task.ApproximateNumberOfMessagesMoved,
					ToMove: aws.ToInt64(task.ApproximateNumberOfMessagesToMove), FailureReason: aws.ToString(task.FailureReason)})
			} else {
				fmt.Fprintln(out, escape(line))
			}
			last = line
		}
		switch aws.ToString(task.Status) {
		case "COMPLETED":
			if !e.json {
				fmt.Fprintf(out, "redrive done: %d message(s) moved from %s\n", task.ApproximateNumberOfMessagesMoved, escape(source.arn))
			}
			return exitOK
		case "FAILED":
			return e.fail(name, fmt.Errorf("the move task failed: %s", aws.ToString(task.FailureReason)))
		case "CANCELLED":
			return e.fail(name, errors.New("the move task was cancelled (CancelMessageMoveTask); the messages not moved are still in the dead-letter queue"))
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(e.stderr, "%s: stopped following task %s, which goes on (cancel it with aws sqs cancel-message-move-task --task-handle %s)\n", name, escape(handle), escape(handle))
			return exitFailed
		case <-time.After(every):
		}
	}
}

// progress is a line of redrive's JSON output.
type progress struct {
	Task          string `json:"task"`
	Status        string `json:"status"`
	Moved         int64  `json:"moved"`
	ToMove        int64  `json:"to_move"`
	FailureReason string `json:"failure_reason,omitempty"`
}

// queue is the dead-letter queue: its ARN and about how many messages
// it holds (-1: unknown).
type queue struct {
	arn      string
	messages int
}

// dlqOf reads the dead-letter queue's ARN and message count, given its
// URL (one GetQueueAttributes, which the stack's RedrivePolicy allows), or
// takes its ARN as it is and reads its count if it may (GetQueueUrl is
// not in that policy).
func dlqOf(ctx context.Context, client sqsAPI, urlOrARN string) (queue, error) {
	if strings.HasPrefix(urlOrARN, "arn:") {
		parts := strings.Split(urlOrARN, ":")
		if len(parts) != 6 || parts[2] != "sqs" {
			return queue{}, errNotQueueARN
		}
		q := queue{arn: urlOrARN, messages: -1}
		if out, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(parts[5]), QueueOwnerAWSAccountId: aws.String(parts[4])}); err == nil {
			if read, err := attributes(ctx, client, aws.ToString(out.QueueUrl)); err == nil {
				q.messages = read.messages
			}
		}
		return q, nil
	}
	return attributes(ctx, client, urlOrARN)
}

// arnOf is the ARN of a queue given by ARN (as it is) or URL (read).
func arnOf(ctx context.Context, client sqsAPI, urlOrARN string) (string, error) {
	if strings.HasPrefix(urlOrARN, "arn:") {
		if parts := strings.Split(urlOrARN, ":"); len(parts) != 6 || parts[2] != "sqs" {
			return "", errNotQueueARN
		}
		return urlOrARN, nil
	}
	q, err := attributes(ctx, client, urlOrARN)
	return q.arn, err
}

var errNotQueueARN = errors.New("not an SQS queue ARN (arn:aws:sqs:REGION:ACCOUNT:NAME)")

// attributes reads a queue's ARN and message count.
func attributes(ctx context.Context, client sqsAPI, url string) (queue, error) {
	out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn, types.QueueAttributeNameApproximateNumberOfMessages},
	})
	if err != nil {
		return queue{}, err
	}
	n, _ := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)])
	return queue{arn: out.Attributes[string(types.QueueAttributeNameQueueArn)], messages: n}, nil
}

// findTask returns the move task of handle among the source's recent
// ones; SQS names a task's handle only while it runs, so a task no
// longer listed by its handle is the source's most recent one.
func findTask(ctx context.Context, client sqsAPI, sourceARN, handle string) (types.ListMessageMoveTasksResultEntry, error) {
	out, err := client.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(sourceARN), MaxResults: aws.Int32(10)})
	if err != nil {
		return types.ListMessageMoveTasksResultEntry{}, err
	}
	if len(out.Results) == 0 {
		return types.ListMessageMoveTasksResultEntry{}, fmt.Errorf("no move task listed for %s", sourceARN)
	}
	for _, r := range out.Results {
		if aws.ToString(r.TaskHandle) == handle {
			return r, nil
		}
	}
	return out.Results[0], nil
}
