package worker

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/request"
)

// identity is the request's identity the handler is given: the
// environment's (IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD, ...) joined with the
// one given in code (Config.HandlerOptions, handler.WithRequest), each
// field from the one that sets it (request.Identity.Merge). A field both
// set otherwise is no override: it is an error, each naming the variable
// and both values, so that a worker never looks for its records in
// another namespace or by another key than its environment says.
func (w *Worker) identity() (request.Identity, error) {
	env := w.Settings.Request
	var inCode handler.Config
	for _, opt := range w.cfg.HandlerOptions {
		if opt != nil {
			opt(&inCode)
		}
	}
	if reflect.ValueOf(inCode.Request).IsZero() {
		return env, nil
	}
	joined, err := env.Merge(inCode.Request)
	if err == nil {
		return joined, nil
	}
	var errs []error
	for _, bad := range optkit.ConfigErrors(err) {
		errs = append(errs, fmt.Errorf("%w, the request's identity given in code (worker.WithHandlerOptions, handler.WithRequest): set each field in one place, or alike in both",
			idemqenv.SettingError(bad)))
	}
	return request.Identity{}, errors.Join(errs...)
}
