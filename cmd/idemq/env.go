package main

import (
	"io"
	"time"
)

// Exit codes.
const (
	exitOK      = 0 // done, or nothing to do when asked nothing
	exitFailed  = 1 // failed, refused, answered no, or the key has no record
	exitUsage   = 2 // a bad command line or setting
	exitChanged = 3 // a change refused by the fence: the record changed since it was read
)

// env is what a command runs with: its input and outputs, the
// environment, and its settings once parsed.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	settings
}
