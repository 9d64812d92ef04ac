package idemqenv

import (
	"errors"
	"fmt"
)

// Read reads the environment through getenv (os.Getenv) as the worker
// does: IDEMQ_MODE says which program it is (the worker when unset), and
// Read reads that program's variables (ReadFor).
func Read(getenv func(string) string) (Settings, error) {
	mode := getenv("IDEMQ_MODE")
	p, ok := modeProgram(mode)
	if !ok {
		return Settings{}, fmt.Errorf("IDEMQ_MODE=%q: want worker (the default), frontdoor or dispatch", mode)
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
