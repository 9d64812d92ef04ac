//go:build !unix

package rie

import "os/exec"

// The emulator runs linux bootstraps; elsewhere only its own process is
// stopped.

func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func terminateGroup(cmd *exec.Cmd) { killGroup(cmd) }
