package worker

import (
	"context"
	"slices"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
)

// FromEnv reads the environment through getenv (os.Getenv) with
// idemqenv.Read and wires the mode IDEMQ_MODE names: worker mode around
// fn (New), the front door (NewFrontDoor) or the dispatcher
// (NewDispatcher), where fn is not called and may be nil; so one program
// serves each mode, given the options of all (those of a mode not chosen
// are not used). Its error names every bad or missing variable at once:
// those Read finds, those Config.Check finds, and those the parts it
// configures refuse, checked before anything is sent.
func FromEnv(ctx context.Context, getenv func(string) string, fn handler.Func, opts ...Option) (*Worker, error) {
	return fromEnv(ctx, getenv, fn == nil, func(store idem.Store, o ...handler.Option) (handler.Handler, error) {
		return handler.New(store, fn, o...)
	}, opts)
}

// FromEnvTyped is FromEnv for a function of a request type, as
// handler.NewTyped takes it: each record's body is decoded into a Req,
// and fn's result stored as JSON. Who a request is comes from Req's tags
// merged with the IDEMQ_* identity (IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD,
// ...); a variable that sets otherwise what a tag says is refused.
//
//	w, err := worker.FromEnvTyped(ctx, os.Getenv, func(ctx context.Context, req Summarise) (Summary, error) { ... })
func FromEnvTyped[Req, Resp any](ctx context.Context, getenv func(string) string, fn func(context.Context, Req) (Resp, error), opts ...Option) (*Worker, error) {
	return fromEnv(ctx, getenv, fn == nil, func(store idem.Store, o ...handler.Option) (handler.Handler, error) {
		return handler.NewTyped(store, fn, o...)
	}, opts)
}

// fromEnv reads the settings through getenv and wires the program
// IDEMQ_MODE names (worker mode's handler made by build), noting for Run
// whether it runs on Lambda. What Read refused is reported with what the
// parts refuse, and the options of a mode not chosen are not used.
func fromEnv(ctx context.Context, getenv func(string) string, nilFn bool, build newHandler, opts []Option) (*Worker, error) {
	s, readErr := idemqenv.Read(getenv)
	var (
		w   *Worker
		err error
	)
	opts = append(slices.Clip(opts), anyMode) // not into the caller's array
	switch s.Program {
	case idemqenv.FrontDoor:
		w, err = newFrontDoor(ctx, s, readErr, opts)
	case idemqenv.Dispatch:
		w, err = newDispatcher(ctx, s, readErr, opts)
	default:
		w, err = newWorker(ctx, s, readErr, nilFn, build, opts)
	}
	if err != nil {
		return nil, err
	}
	w.offLambda = getenv(lambdaRuntimeAPI) == ""
	return w, nil
}
