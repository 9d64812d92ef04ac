package idemqenv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/idemq/idemq/idem/stores"
)

// Read reads the environment through getenv (os.Getenv) as the worker
// does: IDEMQ_MODE says which program it is (the worker when unset), and
// Read reads that program's variables (ReadFor).
func Read(getenv func(string) string) (Settings, error) {
	mode := getenv(Mode)
	p, ok := modeProgram(mode)
	if !ok {
		return Settings{}, fmt.Errorf("%s=%q: want worker (the default), frontdoor or dispatch", Mode, mode)
	}
	return ReadFor(p, getenv)
}

// ReadFor reads program p's variables through getenv and checks them,
// alone and against each other, reporting every bad or missing variable
// at once: an errors.Join of one error each, each naming its variable (and
// for the command its flag: "IDEMQ_TABLE (or --table)"). A value is shown
// in a message only when it cannot hold a secret: a URL with its password
// and query values hidden (stores.ShowURL), a Secret variable not at all.
//
// A program of the worker (Worker, FrontDoor, Dispatch) refuses a variable
// it does not read, one no program reads any more (saying what replaced
// it) and one set without the variable it Needs: a setting that would
// change nothing is a mistake. The command reads only its own
// and ignores the others, which the worker's environment holds. Read fills
// in the defaults the fields of Settings say it does.
//
// It makes no request: what needs one (the store's table, the secret) is
// checked by whoever opens them (package worker).
func ReadFor(p Program, getenv func(string) string) (Settings, error) {
	r := reader{program: p, getenv: getenv}
	s := Settings{Program: p}
	if p != Command {
		for _, v := range retired {
			if getenv(v.name) != "" {
				r.bad("%s is no longer read: %s", v.name, v.why)
			}
		}
	}
	for _, v := range vars {
		val := getenv(v.Name)
		switch {
		case val == "":
		case !v.Programs.Has(p):
			if p != Command {
				r.bad("%s is set but %s: %s", v.Name, r.mode(), r.notRead(v))
			}
		case v.Needs != "" && p != Command && getenv(v.Needs) == "":
			r.bad("%s is set but %s is not: %s", r.label(v.Name), v.Needs, gates[v.Needs])
		default:
			if err := v.value.parse(&s, val); err != nil {
				r.bad("%s: %v", r.show(v, val), err)
			}
		}
	}
	r.check(&s)
	return s, errors.Join(r.errs...)
}

// gates say why a variable needs another (Var.Needs).
var gates = map[string]string{
	BlobBucket:       "results are offloaded only to a bucket",
	ConsumerQueueURL: "it is a setting of consumer mode",
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
	case v.value.kind == KindURL || v.value.kind == kindStoreURL:
		return stores.ShowURL(name, val)
	}
	return fmt.Sprintf("%s=%q", name, val)
}

// mode says which program r reads, for a message: "IDEMQ_MODE is
// dispatch", or with no mode set "IDEMQ_MODE is unset (worker)".
func (r *reader) mode() string {
	if r.program == Worker && r.getenv(Mode) == "" {
		return Mode + " is unset (worker)"
	}
	return Mode + " is " + r.program.String()
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
			modes = append(modes, Mode+"="+p.String())
		}
	}
	if len(modes) > 0 {
		why += "; it is a setting of " + strings.Join(modes, " and ")
	}
	return why
}
