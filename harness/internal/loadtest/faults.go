package loadtest

import (
	"encoding/binary"
	"hash/fnv"
)

// Fault is a way the queue, the function's instances or the producer
// bring a request back. Which messages (or keys) a fault hits is decided by
// Faults.Picks, the same way on every run with the same seed.
type Fault string

// The faults. Which part applies each is said on each.
const (
	// ShortVisibility: the model call takes longer than the queue's
	// visibility timeout, so the message comes back while the first worker
	// still runs. Picked per key; Provider applies it (WithSlowKeys).
	ShortVisibility Fault = "short-visibility"
	// CrashBeforeAck: the instance dies after the function returned and
	// before the messages are deleted, so the whole batch comes back. Picked
	// per message id, at its first delivery; the ESM applies it.
	CrashBeforeAck Fault = "crash-before-ack"
	// CrashDuringCall: the instance dies after the provider billed the call
	// and before the answer reached the function; its claim stays until its
	// lease passes, and a later delivery takes the key over and calls again.
	// Picked per key; applied by whoever can kill the caller
	// (internal/pipeline does it for instances under the Runtime Interface
	// Emulator).
	CrashDuringCall Fault = "crash-during-call"
	// BrokerDuplicate: the queue delivers a message twice, the copy either
	// at once to another instance or after the first was deleted. Picked per
	// message id; the ESM applies it, to standard queues only (a FIFO queue
	// delivers a message once).
	BrokerDuplicate Fault = "broker-duplicate"
	// ProducerResend: the producer sends the same request again under a new
	// message id. Picked per key; the producer applies it (SendWorkload).
	ProducerResend Fault = "producer-resend"
	// ProducerLostAnswer: the queue takes the producer's send and the
	// answer is lost (the connection cut after the request went out), so
	// the producer (package producer) sends the same message, with the
	// same key, again. Picked per key, for its first send; applied by
	// whoever stands between the producer and the queue
	// (internal/pipeline's send proxy).
	ProducerLostAnswer Fault = "producer-lost-answer"
)

// Faults says how often each fault hits: Rates[f] is the fraction of
// messages (or keys) it picks, from 0 (off) to 1 (all). The zero value
// injects nothing.
type Faults struct {
	Seed  uint64
	Rates map[Fault]float64
}

// Picks reports whether fault f hits the message or key id. The choice
// depends only on the seed, f and id.
func (fs Faults) Picks(f Fault, id string) bool {
	rate := fs.Rates[f]
	if rate <= 0 {
		return false
	}
	return unit(fs.Seed, string(f), id) < rate
}

// unit hashes its inputs to a number in [0, 1).
func unit(seed uint64, parts ...string) float64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	// Mix the FNV state so close inputs spread over the whole range.
	x := h.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return float64(x>>11) / (1 << 53)
}
