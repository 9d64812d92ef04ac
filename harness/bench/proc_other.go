//go:build !unix

package bench

import "time"

// The harness measures with getrusage: Unix only.

func processCPU() time.Duration { panic("bench: process CPU time is measured on Unix only") }
