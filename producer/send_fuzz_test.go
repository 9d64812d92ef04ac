package producer_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/fuzzreq"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// FuzzSend checks how the producer builds a message (request.Reader.Stamp,
// then the producer's own checks) and sends it, for every key source, on
// any body, key, scope, caller's attribute and size limit, through
// Producer.Send on a fake SQS that records what it is sent (its seed
// corpus is testdata/fuzz/FuzzSend, replayed by every go test; make fuzz
// explores):
//   - nothing panics; a message refused is refused before anything is
//     sent, with a sentinel error, and for the reason Stamp gives;
//   - a stamped message reads back (Reader.Read) with the key it was
//     stamped with and the scope it was sent for;
//   - decoded with encoding/json, the body sent is the caller's, every
//     member unchanged, with the key member set; the bytes outside the
//     inserted member are the caller's; the caller's attributes are sent
//     unchanged;
//   - the size the producer checks is the size it sends: a message is sent
//     exactly when its body and attributes, as sent, fit MaxMessageBytes;
//   - what is sent is what SQS takes: a body and String attribute values
//     that are not empty and hold only the characters SQS allows, else the
//     message is refused before sending (ErrBadMessage);
//   - the same message sent twice is sent the same, with the same
//     deduplication id on a FIFO queue.
func FuzzSend(f *testing.F) {
	readers := make([]*request.Reader, len(fuzzreq.Rules))
	for i, rule := range fuzzreq.Rules {
		readers[i] = must(request.NewReader(request.Identity(rule.Identity)))
	}
	f.Fuzz(func(t *testing.T, ruleN uint8, body []byte, key, scope, attrName, attrValue string, limit uint16, fifo bool) {
		i := int(ruleN) % len(fuzzreq.Rules)
		rule, r := fuzzreq.Rules[i], readers[i]
		m := producer.Message{Key: key, Body: body, Scope: scope}
		caller := events.SQSMessage{Body: string(body)}
		if attrName != "" {
			m.Attributes = map[string]string{attrName: attrValue}
			v := attrValue
			caller.MessageAttributes = map[string]events.SQSMessageAttribute{attrName: {DataType: "String", StringValue: &v}}
		}
		maxBytes := 1 + int(limit)
		url := "https://sqs.us-east-1.amazonaws.com/123456789012/requests"
		opts := []producer.Option{producer.WithRequest(request.Identity(rule.Identity)), func(c *producer.Config) { c.MaxMessageBytes = maxBytes }, func(c *producer.Config) { c.MaxAttempts = 1 }}
		if fifo {
			url += ".fifo"
			opts = append(opts, producer.WithGroupID("g"))
		}
		fake := &fakeSQS{}
		p := must(producer.New(fake, url, opts...))

		stamped, sid, serr := r.Stamp(caller, key, scope)
		sent, err := p.Send(context.Background(), m)
		if err != nil {
			if len(fake.inputs) != 0 || sent.Attempts != 0 {
				t.Fatalf("rule %s: refused (%v) after sending %d times", rule.Name, err, len(fake.inputs))
			}
			if !errors.Is(sent.Err, err) {
				t.Fatalf("rule %s: Send's error %v, Sent.Err %v", rule.Name, err, sent.Err)
			}
		}
		if serr != nil {
			if err == nil || refusal(err) != refusal(serr) || refusal(err) == "" {
				t.Fatalf("rule %s: Stamp refuses (%v); Send: %v", rule.Name, serr, err)
			}
			return
		}

		// The message as stamped reads back with its key and scope.
		id, rerr := r.Read(stamped)
		switch {
		case rerr != nil || id != sid:
			t.Fatalf("rule %s: stamped %q reads %+v %v, Stamp said %+v", rule.Name, stamped.Body, id, rerr, sid)
		case key != "" && id.Value != key, id.Scope != scope && !callerScope(attrName, scope):
			t.Fatalf("rule %s: stamped with %q (scope %q), reads %q (scope %q)", rule.Name, key, scope, id.Value, id.Scope)
		}
		var path []string
		if rule.Path != nil && key != "" {
			path = rule.Path
		}
		if err := fuzzreq.CheckStamped(body, []byte(stamped.Body), path, id.Value); err != nil {
			t.Fatalf("rule %s: %v", rule.Name, err)
		}
		if a, ok := caller.MessageAttributes[attrName]; ok && attrName != request.ScopeAttribute && attrName != rule.Identity.KeyAttribute {
			if got := stamped.MessageAttributes[attrName]; !reflect.DeepEqual(got, a) {
				t.Fatalf("rule %s: the caller's attribute %q is sent as %+v, not %+v", rule.Name, attrName, got, a)
			}
		}

		size, takes := len(stamped.Body), sqsTakes(stamped.Body)
		for name, a := range stamped.MessageAttributes {
			size += len(name) + len(a.DataType) + len(aws.ToString(a.StringValue))
			takes = takes && sqsTakes(aws.ToString(a.StringValue))
		}
		switch {
		case !takes && size > maxBytes:
			if !errors.Is(err, producer.ErrBadMessage) && !errors.Is(err, producer.ErrTooLarge) {
				t.Fatalf("rule %s: a message SQS refuses, of %d bytes over %d: %v", rule.Name, size, maxBytes, err)
			}
			return
		case !takes:
			if !errors.Is(err, producer.ErrBadMessage) {
				t.Fatalf("rule %s: body %q, attributes %v, which SQS refuses: %v, want ErrBadMessage", rule.Name, stamped.Body, stamped.MessageAttributes, err)
			}
			return
		case size > maxBytes:
			if !errors.Is(err, producer.ErrTooLarge) {
				t.Fatalf("rule %s: a message of %d bytes, over %d: %v, want ErrTooLarge", rule.Name, size, maxBytes, err)
			}
			return
		case err != nil:
			t.Fatalf("rule %s: a message of %d bytes (limit %d) refused: %v", rule.Name, size, maxBytes, err)
		}
		if len(fake.inputs) != 1 || sent.Attempts != 1 {
			t.Fatalf("rule %s: sent %d times, %d attempts", rule.Name, len(fake.inputs), sent.Attempts)
		}
		in := fake.inputs[0]
		if got := aws.ToString(in.MessageBody); got != stamped.Body {
			t.Fatalf("rule %s: sent %q, stamped %q", rule.Name, got, stamped.Body)
		}
		sentSize := len(aws.ToString(in.MessageBody))
		for name, a := range in.MessageAttributes {
			sentSize += len(name) + len(aws.ToString(a.DataType)) + len(aws.ToString(a.StringValue))
			want, ok := stamped.MessageAttributes[name]
			if !ok || aws.ToString(a.DataType) != want.DataType || aws.ToString(a.StringValue) != aws.ToString(want.StringValue) {
				t.Fatalf("rule %s: sent attribute %q %+v, stamped %+v", rule.Name, name, a, want)
			}
		}
		switch {
		case len(in.MessageAttributes) != len(stamped.MessageAttributes):
			t.Fatalf("rule %s: sent attributes %v, stamped %v", rule.Name, in.MessageAttributes, stamped.MessageAttributes)
		case sentSize != size:
			t.Fatalf("rule %s: checked %d bytes, sent %d", rule.Name, size, sentSize)
		case sent.Key != id.Value || sent.RecordKey != id.Key:
			t.Fatalf("rule %s: Sent %q %q, the message reads %q %q", rule.Name, sent.Key, sent.RecordKey, id.Value, id.Key)
		case fifo != (aws.ToString(in.MessageDeduplicationId) != "") || aws.ToString(in.MessageDeduplicationId) != sent.DeduplicationID:
			t.Fatalf("rule %s: FIFO %v, deduplication id %q, Sent's %q", rule.Name, fifo, aws.ToString(in.MessageDeduplicationId), sent.DeduplicationID)
		}

		// Again: the same message, the same id.
		again, err := p.Send(context.Background(), m)
		if err != nil || len(fake.inputs) != 2 || again.DeduplicationID != sent.DeduplicationID || again.RecordKey != sent.RecordKey {
			t.Fatalf("rule %s: sent again: %+v %v", rule.Name, again, err)
		}
		if in2 := fake.inputs[1]; aws.ToString(in2.MessageBody) != aws.ToString(in.MessageBody) || !reflect.DeepEqual(in2.MessageAttributes, in.MessageAttributes) {
			t.Fatalf("rule %s: sent again as %q, first %q", rule.Name, aws.ToString(in2.MessageBody), aws.ToString(in.MessageBody))
		}
	})
}

// callerScope reports whether the caller's own attribute gave the scope
// (the attribute request.ScopeAttribute, with no Message.Scope).
func callerScope(attrName, scope string) bool {
	return attrName == request.ScopeAttribute && scope == ""
}

// sqsTakes reports whether SQS takes s as a message body or a String
// attribute's value: not empty, and only the characters its API allows
// (#x9, #xA, #xD, #x20 to #xD7FF, #xE000 to #xFFFD, #x10000 to
// #x10FFFF), in UTF-8.
func sqsTakes(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r == 0x9, r == 0xA, r == 0xD:
		case r < 0x20, r >= 0xD800 && r < 0xE000, r == 0xFFFE, r == 0xFFFF:
			return false
		}
	}
	return true
}

// refusal names the sentinel err wraps; "" for none.
func refusal(err error) string {
	for _, s := range []struct {
		name string
		err  error
	}{
		{"ErrNoKey", idem.ErrNoKey}, {"ErrBadKey", idem.ErrBadKey}, {"ErrBadBody", request.ErrBadBody},
		{"ErrKeyMismatch", request.ErrKeyMismatch}, {"ErrKeyFuncPanic", request.ErrKeyFuncPanic},
		{"the func's", fuzzreq.ErrFuncRefused},
	} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return ""
}
