package idemqcdk

import (
	"errors"
	"fmt"
	"strings"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/request"
)

// resolveRequest checks id as the function will read it back from its
// environment: request.Identity.Validate's rules, a namespace that cannot
// change (checkNamespace), and nothing an environment variable cannot
// carry. The result has its key source defaulted to
// request.DefaultKeyField, so the template names the field the worker
// reads. Messages name each field by label("Request.<Field>").
func resolveRequest(id request.Identity, label func(field string) string) (request.Identity, error) {
	field := func(name string) string { return "Request." + name }
	if err := checkNamespace(id.Namespace, field("Namespace"), label); err != nil {
		return id, err
	}
	if err := id.Validate(); err != nil {
		var ce *idem.ConfigError
		if errors.As(err, &ce) {
			if _, carried := fieldNamed(ce.Field); carried {
				return id, &SettingError{Field: field(ce.Field), Msg: fmt.Sprintf("%s %s", label(field(ce.Field)), strings.TrimSpace(ce.Value+" "+ce.Err.Error()))}
			}
		}
		return id, &SettingError{Field: "Request", Msg: fmt.Sprintf("%s: %v", label("Request"), err), Err: err}
	}
	id = id.Clone()
	if len(id.KeyFields) == 0 {
		id.KeyFields = nil
	}
	if len(id.FingerprintFields) == 0 {
		id.FingerprintFields = nil
	}
	id = id.Defaulted()
	// The function reads id back from its environment, each list
	// comma-separated and each name trimmed: refuse a name that would come
	// back otherwise, and anything else that would (the round trip): a
	// setting no variable carries (a KeyFunc, NoFingerprint) among them.
	for _, f := range request.Fields() {
		for _, name := range f.Get(id) {
			if f.List && (strings.Contains(name, ",") || strings.TrimSpace(name) != name) {
				return id, &SettingError{Field: field(f.Name), Msg: fmt.Sprintf(
					"%s member %q cannot be carried in %s, which the worker reads comma-separated, each name trimmed: rename the member",
					label(field(f.Name)), name, f.Var)}
			}
		}
	}
	back, err := readRequestEnv(requestEnv(id, idemqenv.Worker))
	if err == nil {
		err = id.SameAs(back)
	}
	var ce *idem.ConfigError
	if errors.As(err, &ce) && ce.Package == "request" {
		carried := false // whether a variable holds the value id sets
		for _, f := range request.Fields() {
			carried = carried || (f.Name == ce.Field && f.Get(id) != nil)
		}
		if !carried {
			var carriers []string
			for _, f := range request.Fields() {
				carriers = append(carriers, label(field(f.Name)))
			}
			return id, &SettingError{Field: field(ce.Field), Msg: fmt.Sprintf(
				"%s is set, and no IDEMQ_ variable carries it to the function, so the deployed function would not have it; "+
					"unset it here and give it to the handler in the function's code (handler.WithRequest), with this construct's %s; the variables carry %s",
				label(field(ce.Field)), label(field("Namespace")), strings.Join(carriers, ", "))}
		}
	}
	if err != nil {
		return id, &SettingError{Field: "Request", Msg: fmt.Sprintf("%s does not come back from the worker's environment as given (read back: %+v, %v)", label("Request"), back, err)}
	}
	return id, nil
}

// readRequestEnv is the Identity the worker reads from env (idemqenv's
// parser, given a table so that the rest of its settings are whole).
func readRequestEnv(env map[string]string) (request.Identity, error) {
	s, err := idemqenv.ReadFor(idemqenv.Worker, func(name string) string {
		if name == "IDEMQ_TABLE" {
			return "records"
		}
		return env[name]
	})
	return s.Request, err
}

// requestEnv is id's environment for program p: the variables of
// request.Fields that id sets, written by idemqenv (Settings.Environ), so
// that idemqenv.ReadFor(p, …) of the function's environment gives id
// back.
func requestEnv(id request.Identity, p idemqenv.Program) map[string]string {
	all := idemqenv.Settings{Program: p, Request: id}.Environ()
	env := map[string]string{}
	for _, f := range request.Fields() {
		if v, ok := all[f.Var]; ok {
			env[f.Var] = v
		}
	}
	return env
}

// checkNamespace refuses a key namespace that is missing or could change:
// it prefixes every key, so it has no default. field names it in the
// *SettingError.
func checkNamespace(ns, field string, label func(field string) string) error {
	bad := func(format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case strings.TrimSpace(ns) == "":
		return bad("%s is empty or unset: it prefixes every idempotency key and must stay the same while records live, so it has no default "+
			"(the function's name and the construct's path both change when the function or construct does); set it once, e.g. to \"idemq\", and never change it",
			label(field))
	case isToken(ns):
		return bad("%s is a token (a value known only at deployment, such as a generated name), which can change and with it every key; set a plain string",
			label(field))
	case strings.TrimSpace(ns) != ns:
		return bad("%s %q has leading or trailing white space; set it without", label(field), ns)
	}
	return nil
}
