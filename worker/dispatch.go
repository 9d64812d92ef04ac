package worker

import (
	"context"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/optkit"
)

// NewDispatcher wires the dispatcher (package durable) from s, settings
// of dispatch mode (IDEMQ_MODE=dispatch) as idemqenv.Read returns them:
// one Lambda durable execution of IDEMQ_DURABLE_FUNCTION started per key,
// named after the record key the worker's handler would claim, and no
// records kept; in consumer mode, the consumer that runs it. The returned
// Worker's Handler is the dispatcher's, and Run serves it as it serves
// worker mode's. Every bad setting is reported at once, as New does.
func NewDispatcher(ctx context.Context, s idemqenv.Settings, opts ...Option) (*Worker, error) {
	return newDispatcher(ctx, s, nil, opts)
}

// newDispatcher is NewDispatcher after readErr, what Read refused,
// reported with every other bad setting.
func newDispatcher(ctx context.Context, s idemqenv.Settings, readErr error, opts []Option) (*Worker, error) {
	w, errs := begin(s, idemqenv.Dispatch, opts)
	if s.Program == idemqenv.Dispatch {
		dc, _ := optkit.ApplyOptions("durable", w.dispatchOptions())
		errs = append(errs, named(dc.Validate()))
		if s.Consumer.QueueURL != "" {
			cc, _ := optkit.ApplyOptions("consumer", w.consumerOptions())
			errs = append(errs, named(cc.Validate()))
		}
	}
	if err := w.open(ctx, readErr, errs); err != nil {
		return nil, err
	}
	if err := w.wireDispatch(ctx); err != nil {
		w.Close()
		return nil, w.failed(err)
	}
	return w, nil
}

func (w *Worker) wireDispatch(ctx context.Context) error {
	s := w.Settings
	invoker, err := w.clients.Lambda(ctx)
	if err != nil {
		return err
	}
	d, err := durable.New(invoker, s.Dispatch.Function, w.dispatchOptions()...)
	if err != nil {
		return err
	}
	w.Handler = d.Handle
	if s.Consumer.QueueURL == "" {
		return nil
	}
	client, err := w.clients.SQS(ctx)
	if err != nil {
		return err
	}
	w.Consumer, err = consumer.New(client, s.Consumer.QueueURL, w.Handler, w.consumerOptions()...)
	return err
}
