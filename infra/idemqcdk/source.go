package idemqcdk

import (
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// SQS's defaults, which a queue defined without them has.
const (
	sqsDefaultRetention  = 4 * 24 * time.Hour
	sqsDefaultVisibility = 30 * time.Second
	// lambdaDefaultTimeout is a function's timeout when it sets none.
	lambdaDefaultTimeout = 3 * time.Second
)

// QueueSettings are a queue's settings that CDK cannot read from an
// imported queue (awssqs.Queue_FromQueueArn, Queue_FromQueueAttributes),
// named as awssqs.QueueProps names them. For a queue defined in the app
// (an awssqs.Queue), leave them unset: they are read from the queue, and
// one given that differs from the queue's is refused. SQS's own defaults
// apply to a queue that sets none, as they do when it is deployed.
type QueueSettings struct {
	// RetentionPeriod is the queue's message retention period. Required
	// for an imported queue; defaults to the queue's own for one of the
	// app.
	RetentionPeriod awscdk.Duration
	// VisibilityTimeout is the queue's visibility timeout. Required for an
	// imported queue; defaults to the queue's own for one of the app.
	VisibilityTimeout awscdk.Duration
	// DeadLetterQueue is the queue's redrive policy: the dead-letter queue
	// and the receives before a message moves there. Required for an
	// imported queue; defaults to the queue's own for one of the app.
	// idemq needs one: its alarms watch it, and a message that always
	// fails would otherwise be received until its retention ends.
	DeadLetterQueue *awssqs.DeadLetterQueue
	// DeadLetterRetentionPeriod is the dead-letter queue's message
	// retention period, which sizes the records so that a redrive from it
	// replays. Required when the dead-letter queue is imported; defaults
	// to the dead-letter queue's own for one of the app.
	DeadLetterRetentionPeriod awscdk.Duration
}

// source is a queue and the function it feeds, their settings read from
// them or given, with the label of each setting's origin.
type source struct {
	queue, dlq awssqs.IQueue
	settings   settings // timeout, retention, visibility, maxReceives, dlqRetention, fifo
	labels     map[string]string
}

// label names a setting by where it came from, for messages; settings
// not read from the queue or function are the props' (prefix + field).
func (src *source) label(prefix string) func(field string) string {
	return func(field string) string {
		if l, ok := src.labels[field]; ok {
			return l
		}
		return prefix + field
	}
}

// readQueue reads queue's settings, or takes them from given where CDK
// cannot read them (an imported queue), into a source whose labels say
// where each came from. A setting given that differs from the queue's
// own, one missing where the queue cannot say it, a token, and a queue
// without a dead-letter queue are each a *SettingError; prefix starts the
// props' names in messages ("AttachmentProps.").
func readQueue(q awssqs.IQueue, given *QueueSettings, prefix string) (*source, error) {
	if q == nil {
		return nil, &SettingError{Field: "Queue", Msg: prefix + "Queue is nil: give the queue that feeds the function"}
	}
	if given == nil {
		given = &QueueSettings{}
	}
	src := &source{queue: q, labels: map[string]string{"FIFO": "the queue's Fifo"}}
	src.settings.existingQueue = true
	src.settings.fifo = q.Fifo() != nil && *q.Fifo()
	gp := prefix + "QueueSettings."
	path := func(c awssqs.IQueue) string { return *c.Node().Path() }
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}

	// reconcile is a setting read from a queue defined in the app (read,
	// nil when the queue sets none: def), or, for an imported one, the one
	// given; given alongside a read one, it must agree.
	reconcile := func(field, what string, defined bool, read *float64, readName, givenName string, fromProps *float64, def float64) (float64, error) {
		if !defined {
			if fromProps == nil {
				return 0, bad(field, "%s is imported, so CDK cannot read its %s, which sizes the records and is checked against the function: set %s%s (as the queue has it)",
					what, readName, gp, givenName)
			}
			src.labels[field] = gp + givenName
			return *fromProps, nil
		}
		v, label := def, what+"'s "+readName+" (SQS's default)"
		if read != nil {
			v, label = *read, what+"'s "+readName
		}
		if fromProps != nil && *fromProps != v {
			return 0, bad(field, "%s%s is %v, but %s is %v: leave %s%s unset for a queue defined in this app", gp, givenName, *fromProps, label, v, gp, givenName)
		}
		src.labels[field] = label
		return v, nil
	}
	// cfnQueue is c's CloudFormation queue when c is defined in the app.
	cfnQueue := func(c awssqs.IQueue) (awssqs.Queue, awssqs.CfnQueue) {
		if d, ok := c.(awssqs.Queue); ok {
			if cfn, ok := d.Node().DefaultChild().(awssqs.CfnQueue); ok {
				return d, cfn
			}
		}
		return nil, nil
	}
	// known is a property of a defined queue: nil when unset; a token is
	// refused.
	known := func(field string, c awssqs.IQueue, v *float64) (*float64, error) {
		if v != nil && *awscdk.Token_IsUnresolved(v) {
			return nil, bad(field, "the queue %s's %s is a token (a value known only at deployment), which synth cannot check; give it as a number", path(c), field)
		}
		return v, nil
	}
	secondsGiven := func(field, name string, d awscdk.Duration) (*float64, error) {
		if d == nil {
			return nil, nil
		}
		v, err := wholeSeconds(d)
		if err != nil {
			return nil, bad(field, "%s%s %v", gp, name, err)
		}
		return &v, nil
	}

	queueDefined, cfn := cfnQueue(q)
	var readRetention, readVisibility *float64
	var err error
	if cfn != nil {
		if readRetention, err = known("Retention", q, cfn.MessageRetentionPeriod()); err != nil {
			return nil, err
		}
		if readVisibility, err = known("VisibilityTimeout", q, cfn.VisibilityTimeout()); err != nil {
			return nil, err
		}
	}
	what := "the queue"
	if cfn == nil {
		what = "the queue " + path(q)
	}
	for _, f := range []struct {
		field, name string
		read        *float64
		given       awscdk.Duration
		def         time.Duration
		out         *time.Duration
	}{
		{"Retention", "RetentionPeriod", readRetention, given.RetentionPeriod, sqsDefaultRetention, &src.settings.retention},
		{"VisibilityTimeout", "VisibilityTimeout", readVisibility, given.VisibilityTimeout, sqsDefaultVisibility, &src.settings.visibility},
	} {
		g, err := secondsGiven(f.field, f.name, f.given)
		if err != nil {
			return nil, err
		}
		v, err := reconcile(f.field, what, cfn != nil, f.read, f.name, f.name, g, f.def.Seconds())
		if err != nil {
			return nil, err
		}
		*f.out = time.Duration(v) * time.Second
	}

	// The dead-letter queue and the receives before a message moves there.
	dl := given.DeadLetterQueue
	if cfn != nil {
		own := queueDefined.DeadLetterQueue()
		switch {
		case own == nil:
			return nil, bad("MaxReceives", "the queue %s has no dead-letter queue: give it one (awssqs.QueueProps.DeadLetterQueue, MaxReceiveCount 5 as AWS recommends); "+
				"idemq's alarms watch it, and without it a message that always fails is received until its retention ends", path(q))
		case dl != nil && dl.Queue != nil && path(dl.Queue) != path(own.Queue):
			return nil, bad("MaxReceives", "%sDeadLetterQueue.Queue is %s, but the queue's own dead-letter queue is %s: leave it unset for a queue defined in this app",
				gp, path(dl.Queue), path(own.Queue))
		}
		readMax, err := known("MaxReceives", q, own.MaxReceiveCount)
		if err != nil {
			return nil, err
		}
		if readMax == nil {
			return nil, bad("MaxReceives", "the queue %s's DeadLetterQueue.MaxReceiveCount is unset; give it (5, as AWS recommends)", path(q))
		}
		var givenMax *float64
		if dl != nil {
			givenMax = dl.MaxReceiveCount
		}
		v, err := reconcile("MaxReceives", what, true, readMax, "DeadLetterQueue.MaxReceiveCount", "DeadLetterQueue.MaxReceiveCount", givenMax, 0)
		if err != nil {
			return nil, err
		}
		src.settings.maxReceives = int(v)
		dl = own
	} else {
		switch {
		case dl == nil || dl.Queue == nil:
			return nil, bad("MaxReceives", "%s is imported, so CDK cannot read its redrive policy: set %sDeadLetterQueue (its Queue, awssqs.Queue_FromQueueArn of the dead-letter queue, and MaxReceiveCount)",
				what, gp)
		case dl.MaxReceiveCount == nil || *awscdk.Token_IsUnresolved(dl.MaxReceiveCount):
			return nil, bad("MaxReceives", "%sDeadLetterQueue.MaxReceiveCount is unset or a token: give the redrive policy's maxReceiveCount as a number", gp)
		}
		src.labels["MaxReceives"] = gp + "DeadLetterQueue.MaxReceiveCount"
		src.settings.maxReceives = int(*dl.MaxReceiveCount)
	}
	if v := float64(src.settings.maxReceives); v != *dl.MaxReceiveCount {
		return nil, bad("MaxReceives", "%s %v is not a whole number", src.labels["MaxReceives"], *dl.MaxReceiveCount)
	}
	src.dlq = dl.Queue

	// The dead-letter queue's retention.
	_, dcfn := cfnQueue(dl.Queue)
	var readDLQ *float64
	if dcfn != nil {
		if readDLQ, err = known("DeadLetterRetention", dl.Queue, dcfn.MessageRetentionPeriod()); err != nil {
			return nil, err
		}
	}
	g, err := secondsGiven("DeadLetterRetention", "DeadLetterRetentionPeriod", given.DeadLetterRetentionPeriod)
	if err != nil {
		return nil, err
	}
	dwhat := "the dead-letter queue"
	if dcfn == nil {
		dwhat = "the dead-letter queue " + path(dl.Queue)
	}
	v, err := reconcile("DeadLetterRetention", dwhat, dcfn != nil, readDLQ, "RetentionPeriod", "DeadLetterRetentionPeriod", g, sqsDefaultRetention.Seconds())
	if err != nil {
		return nil, err
	}
	src.settings.dlqRetention = time.Duration(v) * time.Second
	if dlFIFO := dl.Queue.Fifo() != nil && *dl.Queue.Fifo(); dlFIFO != src.settings.fifo {
		return nil, bad("FIFO", "the queue %s and its dead-letter queue %s are not both FIFO or both standard, which SQS refuses", path(q), path(dl.Queue))
	}
	return src, nil
}

// readFunction reads fn's timeout into src, and returns the function to
// give the environment: fn itself, or the function of an Alias or Version.
// An imported function is refused: its environment cannot be set, and
// its role may be unknown.
func (src *source) readFunction(fn awslambda.IFunction, prefix string) (awslambda.Function, error) {
	if fn == nil {
		return nil, &SettingError{Field: "Function", Msg: prefix + "Function is nil: give the function the queue feeds"}
	}
	target := fn
	switch f := fn.(type) {
	case awslambda.Function:
	case awslambda.Alias:
		target = f.Version().Lambda()
	case awslambda.Version:
		target = f.Lambda()
	}
	defined, ok := target.(awslambda.Function)
	if !ok {
		return nil, &SettingError{Field: "Function", Msg: fmt.Sprintf(
			"%sFunction %s is not a function defined in this app (an awslambda.Function, or an Alias or Version of one): the idemq environment cannot be set on an imported function; "+
				"attach idemq in the app that defines it", prefix, *fn.Node().Path())}
	}
	src.labels["Timeout"] = "the function's Timeout"
	src.settings.timeout = lambdaDefaultTimeout
	if t := defined.Timeout(); t != nil {
		v, err := wholeSeconds(t)
		if err != nil {
			return nil, &SettingError{Field: "Timeout", Msg: fmt.Sprintf("the function %s's Timeout %v", *defined.Node().Path(), err)}
		}
		src.settings.timeout = time.Duration(v) * time.Second
	} else {
		src.labels["Timeout"] = "the function's Timeout (Lambda's default)"
	}
	return defined, nil
}

// wholeSeconds is d in seconds, which must be whole and known at synth.
func wholeSeconds(d awscdk.Duration) (float64, error) {
	if *d.IsUnresolved() {
		return 0, fmt.Errorf("is a token (a value known only at deployment), which synth cannot check; give a plain duration")
	}
	ms := d.ToMilliseconds(&awscdk.TimeConversionOptions{Integral: jsii.Bool(false)})
	if ms == nil || *awscdk.Token_IsUnresolved(ms) {
		return 0, fmt.Errorf("is a token (a value known only at deployment), which synth cannot check; give a plain duration")
	}
	if math.Mod(*ms, 1000) != 0 {
		return 0, fmt.Errorf("%s is not a whole number of seconds", *d.ToHumanString())
	}
	return *ms / 1000, nil
}

// duration is d as a time.Duration, or 0 when d is nil; d is whole seconds
// and no token, or it is an error naming label.
func duration(d awscdk.Duration, label string) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	v, err := wholeSeconds(d)
	if err != nil {
		return 0, fmt.Errorf("%s %w", label, err)
	}
	return time.Duration(v) * time.Second, nil
}
