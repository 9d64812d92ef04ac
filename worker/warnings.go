package worker

import (
	"log/slog"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/queue"
)

// warnings logs, once at start-up, the settings that work but may cost a
// second execution: a namespace left to the function's name, which a new
// function (a replaced or renamed one) does not keep; a record expiry that
// covers the queue but not a redrive from its dead-letter queue; and
// records kept in memory.
func warnings(s idemqenv.Settings, logger *slog.Logger) {
	if s.Request.Namespace == "" {
		logger.Warn("idemq worker: IDEMQ_NAMESPACE is unset: every key is prefixed with the function's name, and a function replaced or renamed "+
			"finds none of its records, so every redelivered request runs again; set IDEMQ_NAMESPACE once and keep it",
			"function", lambdacontext.FunctionName)
	}
	if s.Store.Kind == stores.Memory {
		logger.Warn("idemq worker: records are kept in memory; they last as long as this process", "store", s.Store.Kind)
	}
	if s.Queue == (queue.Settings{}) {
		return
	}
	if err := queue.CheckExpiry(s.Queue, s.EffectiveExpiry()); err != nil {
		logger.Warn("idemq worker: IDEMQ_RECORD_EXPIRY does not cover a redrive from the dead-letter queue: a message redriven late may run its work again",
			"err", err.Error())
	}
}
