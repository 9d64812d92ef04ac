//go:build idemq_keysource

package request

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// A build with the tag idemq_keysource has a second key source outside
// code, added here and nowhere else: the key is a FIFO message's
// deduplication id, set by IDEMQ_KEY_DEDUPLICATION_ID=true (the CDK
// context key idemq:keyDeduplicationId, the command's
// --key-deduplication-id). Its row sets the Identity's KeyFunc to
// deduplicationKey, which is its reader. The tests of idemqenv, the CDK
// constructs and the command built with the tag (make keysource) show it
// read, written and checked by each of them.

// extraFields are Fields added by this build: the deduplication id.
func extraFields() []Field {
	return []Field{withAccess(Field{Name: "KeyFunc", Var: "IDEMQ_KEY_DEDUPLICATION_ID", Context: "idemq:keyDeduplicationId", Flag: "key-deduplication-id",
		Default: "`false`",
		Doc:     "`true`: the key is the FIFO message's deduplication id; one key source"},
		func(id Identity) []string {
			if id.KeyFunc != nil && reflect.ValueOf(id.KeyFunc).Pointer() == reflect.ValueOf(deduplicationKey).Pointer() {
				return []string{"true"}
			}
			return nil
		},
		func(id *Identity, values []string) error {
			switch values[0] {
			case "true":
				id.KeyFunc = deduplicationKey
			case "false":
			default:
				return errors.New("want true or false")
			}
			return nil
		})}
}

// deduplicationKey reads the key of a message from its deduplication id.
func deduplicationKey(msg events.SQSMessage) (string, error) {
	if v := msg.Attributes["MessageDeduplicationId"]; v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%w: the message has no deduplication id", idem.ErrNoKey)
}
