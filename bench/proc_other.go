//go:build !unix

package bench

import (
	"os/exec"
	"time"
)

// The harness measures with getrusage and process groups: Unix only.

func processCPU() time.Duration { panic("bench: process CPU time is measured on Unix only") }

func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
