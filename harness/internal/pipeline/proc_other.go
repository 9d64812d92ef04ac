//go:build !linux

package pipeline

import "os/exec"

// ownGroup does nothing here: the emulator runs on Linux only.
func ownGroup(*exec.Cmd) {}

// killGroup kills the command's process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
