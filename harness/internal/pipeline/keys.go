package pipeline

import (
	"encoding/json"

	"github.com/idemq/idemq/idem"
)

// Namespace is the key namespace the workers use (IDEMQ_NAMESPACE).
const Namespace = "pipeline"

// bodyKey is the idempotency_key of a body, "" if it has none.
func bodyKey(body string) string {
	var b struct {
		Key string `json:"idempotency_key"`
	}
	_ = json.Unmarshal([]byte(body), &b)
	return b.Key
}

// clientKey is key's record key in the run's namespace.
func clientKey(key string) idem.Key {
	k, _ := idem.ClientKey(Namespace, key)
	return k
}
