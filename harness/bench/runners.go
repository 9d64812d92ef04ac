package bench

import (
	"crypto/rand"
	"encoding/hex"
)

// The runners' IDs.
const (
	RunnerFloor           = "floor"             // the raw-SDK floor at idemq's default concurrency
	RunnerFloorFenced     = "floor-fenced"      // the fenced floor (idemq's requests) at idemq's default concurrency
	RunnerIdemq           = "idemq"             // idemq with its defaults (handler.DefaultConcurrency)
	RunnerFloorWide       = "floor-wide"        // the raw-SDK floor, every record of a batch at once
	RunnerFloorFencedWide = "floor-fenced-wide" // the fenced floor, every record of a batch at once
	RunnerIdemqWide       = "idemq-wide"        // idemq WithConcurrency(batch size)
	RunnerPowertools      = "powertools"        // Powertools TypeScript (every record at once: Promise.all)
)

// newRunID returns eight random hex digits.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
