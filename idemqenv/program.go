package idemqenv

import (
	"strings"
)

// Program is what reads the environment: the reference worker in one of
// its modes (IDEMQ_MODE), a function of your own (package worker reads
// the worker's variables), or the operator's command. A set of them, as a
// Var's Programs, is their bitwise or.
type Program uint8

// The programs that read IDEMQ_* variables.
const (
	// Worker claims each record of an SQS batch in the store and runs the
	// work: on Lambda, or as a consumer of a queue
	// (IDEMQ_CONSUMER_QUEUE_URL). IDEMQ_MODE=worker, its default.
	Worker Program = 1 << iota
	// FrontDoor serves the HTTP front door over the worker's records.
	// IDEMQ_MODE=frontdoor.
	FrontDoor
	// Dispatch starts one Lambda durable execution per key, keeping no
	// records. IDEMQ_MODE=dispatch.
	Dispatch
	// Command is the operator's command (cmd/idemq): it reads the
	// worker's store settings, each also a flag, and ignores the others.
	Command
)

// programNames are the programs' names, as IDEMQ_MODE spells the modes
// (the command has no mode: it is a program of its own).
var programNames = []struct {
	p    Program
	name string
}{{Worker, "worker"}, {FrontDoor, "frontdoor"}, {Dispatch, "dispatch"}, {Command, "command"}}

// Has reports whether p holds every program of q.
func (p Program) Has(q Program) bool { return q != 0 && p&q == q }

// String names p's programs, joined by "|": "worker|frontdoor".
func (p Program) String() string {
	var names []string
	for _, n := range programNames {
		if p.Has(n.p) {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// modeProgram is the program IDEMQ_MODE's value names ("" the worker),
// or false.
func modeProgram(mode string) (Program, bool) {
	switch strings.ToLower(mode) {
	case "", "worker":
		return Worker, true
	case "frontdoor":
		return FrontDoor, true
	case "dispatch":
		return Dispatch, true
	}
	return 0, false
}
