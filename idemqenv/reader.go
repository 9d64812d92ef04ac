package idemqenv

import (
	"fmt"
	"strings"

	"github.com/idemq/idemq/idem/stores"
)

// gates say why a variable needs another (Var.Needs).
var gates = map[string]string{
	"IDEMQ_BLOB_BUCKET":        "results are offloaded only to a bucket",
	"IDEMQ_CONSUMER_QUEUE_URL": "it is a setting of consumer mode",
}

// reader collects what is wrong with one program's variables.
type reader struct {
	program Program
	getenv  func(string) string
	errs    []error
}

func (r *reader) bad(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// label names a variable in a message: for the command, with its flag.
func (r *reader) label(name string) string {
	if r.program == Command {
		if v, ok := Lookup(name); ok && v.Flag != "" {
			return name + " (or --" + v.Flag + ")"
		}
	}
	return name
}

// show is "NAME=value" for a message: a URL with its secrets hidden, or
// not at all; a Secret variable never.
func (r *reader) show(v Var, val string) string {
	name := r.label(v.Name)
	switch {
	case v.Secret:
		return name + " (value not shown)"
	case v.value.kind == kindURL || v.value.kind == kindStoreURL:
		return stores.ShowURL(name, val)
	}
	return fmt.Sprintf("%s=%q", name, val)
}

// mode says which program r reads, for a message: "IDEMQ_MODE is
// dispatch", or with no mode set "IDEMQ_MODE is unset (worker)".
func (r *reader) mode() string {
	if r.program == Worker && r.getenv("IDEMQ_MODE") == "" {
		return "IDEMQ_MODE is unset (worker)"
	}
	return "IDEMQ_MODE is " + r.program.String()
}

// notRead says why a variable the program does not read is refused.
func (r *reader) notRead(v Var) string {
	var why string
	switch r.program {
	case Dispatch:
		why = "dispatch mode keeps no records and calls no provider; the durable function does the work"
	case FrontDoor:
		why = "the front door only enqueues requests and reads the worker's records"
	default:
		why = "the worker does not read it"
	}
	var modes []string
	for _, p := range []Program{Worker, FrontDoor, Dispatch} {
		if v.Programs.Has(p) {
			modes = append(modes, "IDEMQ_MODE="+p.String())
		}
	}
	if len(modes) > 0 {
		why += "; it is a setting of " + strings.Join(modes, " and ")
	}
	return why
}
